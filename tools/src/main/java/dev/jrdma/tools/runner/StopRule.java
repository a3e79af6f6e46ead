// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.ProgressLine;

/**
 * When a measurement loop ends, and what it records on the way: after a count of iterations
 * (-n; the latency loops keep each post's time), or at the end of a time window (-D, perftest's
 * duration mode: the loop counts the iterations that complete inside the sample window). Every
 * loop is written once against this rule: in count mode {@link #iterations} bounds it and
 * {@link #completed} always lets it go on; in window mode the iterations are unbounded and
 * {@link #completed} ends it.
 */
final class StopRule {
    private final long iterations;
    private final int seconds;
    private final long[] postTimes;
    private final ProgressLine progress;
    private int margin = -1;
    private Soak soak;
    private long gapNanos;
    private CpuUsage cpu;
    private Window window;
    private long counted;
    /** Count mode with post times: the stamp clock at the start, and whether the stamps are nanoseconds yet. */
    private PostClock.Mark clockStart;
    private boolean inNanos;

    private StopRule(long iterations, int seconds, long[] postTimes, ProgressLine progress) {
        this.iterations = iterations;
        this.seconds = seconds;
        this.postTimes = postTimes;
        this.progress = progress;
    }

    /** -n: {@code iterations} per QP; {@code recordPosts}: keep each post's time (the latency tests). */
    static StopRule count(long iterations, boolean recordPosts) {
        return new StopRule(iterations, 0, recordPosts ? new long[Math.toIntExact(iterations)] : null, null);
    }

    /** -D: a window of {@code seconds}, started by {@link #start}; the progress line shows the count. */
    static StopRule window(int seconds, ProgressLine progress) {
        return new StopRule(Long.MAX_VALUE, seconds, null, progress);
    }

    /**
     * -D with -f: a window of {@code seconds} with margins of {@code margin} seconds (-1: a
     * quarter of the duration); with {@code cpu}, --cpu_util's /proc/stat samples at the sample
     * window's edges.
     */
    static StopRule window(int seconds, int margin, CpuUsage cpu, ProgressLine progress) {
        StopRule r = window(seconds, progress);
        r.margin = margin;
        r.cpu = cpu;
        return r;
    }

    /** --run_infinitely: unbounded, reporting every period, until {@code soak} stops it. */
    static StopRule soak(Soak soak) {
        StopRule r = new StopRule(Long.MAX_VALUE, 1, null, null);
        r.soak = soak;
        return r;
    }

    /** --latency_gap: {@link #beforePost} waits {@code micros} before each post. */
    StopRule withGap(int micros) {
        gapNanos = micros * 1_000L;
        return this;
    }

    /** The soak of --run_infinitely, or null. */
    Soak soak() {
        return soak;
    }

    /** --cpu_util's samples of this run's window, or null. */
    CpuUsage cpu() {
        return cpu;
    }

    /**
     * --latency_gap: spins for the gap before a post (perftest busy-waits on its cycle counter,
     * and takes the post's time after the wait, so the gap is part of the measured interval).
     */
    void beforePost() {
        if (gapNanos > 0) {
            long end = System.nanoTime() + gapNanos;
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
        }
    }

    /** Whether --latency_gap asks {@link #beforePost} to wait before each post. */
    boolean hasGap() {
        return gapNanos > 0;
    }

    /** Whether the loop runs for a time window (-D) rather than a count. */
    boolean timed() {
        return seconds > 0;
    }

    /** The iterations per QP: the count, or unbounded for a window. */
    long iterations() {
        return iterations;
    }

    /**
     * Starts the window at {@code now} unless it runs already; in count mode with post times, marks
     * the post clock's start ({@link PostClock}).
     */
    void start(long now) {
        if (seconds > 0 && window == null && soak == null) {
            window = Window.from(now, seconds, margin);
        }
        if (postTimes != null && clockStart == null) {
            clockStart = PostClock.Mark.now();
        }
    }

    /** Whether the loop's clock runs: always in count mode and in a soak, once started in window mode. */
    boolean started() {
        return seconds == 0 || window != null || soak != null;
    }

    /** The window (null in count mode or before the start). */
    Window window() {
        return window;
    }

    /**
     * Count mode with post times: records iteration {@code i}'s post, read just after it, as a
     * {@link PostClock} stamp (converted once the loop is over, by {@link #postTimes}).
     */
    void posted(int i) {
        if (postTimes != null) {
            postTimes[i] = PostClock.now();
        }
    }

    /**
     * Count mode with post times: the array {@link #posted} fills, for a loop that stores
     * {@link PostClock#now()} stamps itself (index = iteration) after {@link #start}; the stamps
     * become nanoseconds in {@link #postTimes}.
     */
    long[] postStamps() {
        if (postTimes == null) {
            throw new IllegalStateException("this rule records no post times");
        }
        return postTimes;
    }

    /** The post times recorded in count mode, in nanoseconds: call after the loop. */
    long[] postTimes() {
        if (postTimes != null && !inNanos) {
            if (clockStart == null) {
                throw new IllegalStateException("post times of a count that was never started");
            }
            PostClock.toNanos(postTimes, clockStart, PostClock.Mark.now());
            inNanos = true;
        }
        return postTimes;
    }

    /**
     * After an iteration: in window mode counts it if it completed inside the sample window,
     * shows the progress and returns false once the window is over; true in count mode.
     */
    boolean completed() {
        return seconds == 0 || completed(System.nanoTime(), 1);
    }

    /** Window mode: {@code n} iterations completed at {@code now}; false once the window is over. */
    boolean completed(long now, long n) {
        if (soak != null) {
            return soak.completed(now, n);
        }
        if (window == null) {
            return true;
        }
        if (cpu != null) {
            cpu.at(now, window);
        }
        if (window.sampling(now)) {
            counted += n;
        }
        if (window.over(now)) {
            return false;
        }
        progress.update(now, now - window.start(), counted);
        return true;
    }

    /** The iterations counted in the sample window. */
    long counted() {
        return counted;
    }

    /** Clears the progress line (before the row is printed). */
    void finish() {
        if (progress != null) {
            progress.finish();
        }
    }

    /**
     * perftest's duration states as times, not SIGALRM: a warm-up margin, the sample window in
     * which iterations are counted, a cool-down margin, then the end. The margin is -f, or -D / 4
     * whole seconds as perftest's default; the reported rate is the window's count over the
     * window's length.
     */
    record Window(long start, long sampleStart, long sampleEnd, long end) {
        static Window from(long start, int seconds) {
            return from(start, seconds, -1);
        }

        /** {@code marginSeconds} -1: a quarter of the duration. */
        static Window from(long start, int seconds, int marginSeconds) {
            long margin = (marginSeconds >= 0 ? marginSeconds : seconds / 4) * 1_000_000_000L;
            long total = seconds * 1_000_000_000L;
            return new Window(start, start + margin, start + total - margin, start + total);
        }

        boolean sampling(long now) {
            return now - sampleStart >= 0 && now - sampleEnd < 0;
        }

        boolean over(long now) {
            return now - end >= 0;
        }

        long length() {
            return sampleEnd - sampleStart;
        }
    }
}
