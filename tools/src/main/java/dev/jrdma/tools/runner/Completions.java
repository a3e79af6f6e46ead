// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.CompletionChannel;
import dev.jrdma.CompletionQueue;
import dev.jrdma.PreparedPoll;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.WaitStrategy;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionException;
import dev.jrdma.WorkCompletions;
import java.io.IOException;
import java.time.Duration;

/**
 * How a side waits for its completions: busy-polling as perftest does, or with -e sleeping on
 * the completion channel; every wait ends within the timeout (a busy-poll at most an eighth of
 * it later, see {@link #spinMask(Duration)}), and in window mode (-D) also quietly at the
 * window's end.
 */
final class Completions {
    /**
     * Why a measurement loop stalls: perftest's protocol does not exchange the run's
     * parameters, so a mismatch shows only as missing messages.
     */
    static final String STALLED = "the peer stopped or vanished, or the two sides differ in a parameter "
            + "that must match (-c, -s/-a, -n/-D, -q, -b, -r)";
    /**
     * Empty polls between two looks at the clock while waiting, at least. The clock stays out of
     * the polling loop: System.nanoTime is ~25 ns on hardware but 1-5 us in a VM whose
     * clocksource is the HPET, and each look (~100 instructions through the vDSO) lands on the
     * wait's critical path. At a fixed 65536, a send_lat_ext half round trip under perf-gate's
     * plugin (18,555 empty polls on average, a long tail) still looked 0.1-0.2 times per
     * iteration, a cost perftest (no timeout) does not have and one that grew with the
     * emulator's timing (research/notes/2026-11-28-send-queue-owner.md).
     */
    static final int MIN_SPINS_PER_CLOCK_READ = 1 << 16;
    /** ... and at most (about 1.3 s of empty polls on hardware, 67 s at {@link #SLOWEST_POLL_NANOS}). */
    static final int MAX_SPINS_PER_CLOCK_READ = 1 << 26;
    /**
     * The slowest empty poll the cadence is sized for: qemu TCG's compiled busy-poll of rxe takes
     * ~0.3 us (under perf-gate's counting plugin), a NIC's 20-50 ns. A slower poll (the
     * interpreter's, before the loop's on-stack compilation) makes the looks proportionally later.
     */
    static final long SLOWEST_POLL_NANOS = 1_000;
    /** Looks at the clock per timeout, at least, at the slowest poll. */
    static final int LOOKS_PER_TIMEOUT = 16;

    /**
     * The measurement's {@link #spinMask} for {@code timeout}: empty polls between two looks at
     * the clock, a power of two, as many as take a sixteenth of the timeout at
     * {@link #SLOWEST_POLL_NANOS} (the default 60 s: 2^21), within
     * [{@link #MIN_SPINS_PER_CLOCK_READ}, {@link #MAX_SPINS_PER_CLOCK_READ}], minus one. The
     * bound: a wait's deadline starts at its first look and a stall is seen at the first look
     * past it, so a stalled wait ends within the timeout plus two cadences: at most 1/8 of the
     * timeout late (a timeout of a second or less: 131 ms), at the slowest poll; on hardware
     * 20-50 times less.
     */
    static int spinMask(Duration timeout) {
        long spins = timeout.toNanos() / (LOOKS_PER_TIMEOUT * SLOWEST_POLL_NANOS);
        return Integer.highestOneBit(Math.clamp(spins, MIN_SPINS_PER_CLOCK_READ, MAX_SPINS_PER_CLOCK_READ)) - 1;
    }

    /**
     * What the busy-polling loops do between two empty polls: nothing, as perftest's loops (a
     * pause would only delay seeing the completion); the API's wait type, so that every wait of
     * jrdma and its CLI says how it idles in one way (issue #38).
     */
    static final WaitStrategy IDLE = WaitStrategy.busyPoll();

    private final Side side;
    private final Duration timeout;
    private final long timeoutNanos;
    /**
     * Empty polls between two looks at the clock, minus one: {@link #spinMask(Duration)} of the
     * timeout, and 3 for a warm-up twin, so the warm-up also runs the clock check that a long wait of the
     * measurement reaches (a path the JIT has not seen is compiled as a deoptimizing trap).
     */
    final int spinMask;
    private final WorkCompletion wc = new WorkCompletion();
    /** The completions of the last {@link #pollBatch}: room for --cqe_poll's or dynamic polling's largest. */
    final WorkCompletions batch;
    /** The poll sizes of the BW loops' send and receive CQs (--cqe_poll, dynamic polling). */
    private final PollSize sendPoll;
    private final PollSize recvPoll;

    /** The completion the last {@code take} returned (its fields stay until the next poll). */
    WorkCompletion last() {
        return wc;
    }

    Completions(Side side, Duration timeout, int spinMask) {
        this.side = side;
        var s = side.s;
        this.batch = new WorkCompletions(s.posting().pollCapacity());
        this.sendPoll = new PollSize(s.posting(), s.iters(), s.durationSeconds() > 0, s.qps());
        this.recvPoll = new PollSize(s.posting(), s.iters(), s.durationSeconds() > 0, s.qps());
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.spinMask = spinMask;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    Duration timeout() {
        return timeout;
    }

    /**
     * Polls one completion of {@code cq}: within the timeout in count mode (true), and in window
     * mode false once the window is over.
     */
    boolean take(CompletionQueue cq, String what, StopRule rule) throws IOException {
        if (rule.timed()) {
            return takeUntil(cq, what, rule.window());
        }
        take(cq, what);
        return true;
    }

    /** Polls one completion of {@code cq} within the timeout; fails on an error status. */
    WorkCompletion take(CompletionQueue cq, String what) throws IOException {
        if (side.channel != null) {
            return takeWithEvents(cq, what);
        }
        long deadline = 0;
        int spins = 0;
        while (cq.poll(wc) == 0) {
            IDLE.idle(++spins);   // busy-poll as perftest does
            if ((spins & spinMask) == 0) {
                deadline = checkDeadline(deadline, what);
            }
        }
        if (!wc.isSuccess()) {
            throw failed(what, wc);
        }
        return wc;
    }

    /**
     * Whether the loops' waits under {@code rule} are the plain busy-poll of {@link #spin}: count
     * mode (-n) without -e. The latency loops decide it once, before the loop, and then call
     * {@code spin} directly: one small method per wait, not the three levels of dispatch that C2
     * would have to inline through to reach it (research/notes/2026-11-27-latency-loops-inlined.md).
     */
    boolean spins(StopRule rule) {
        return !rule.timed() && side.channel == null;
    }

    /**
     * The busy-poll of count mode without -e, through the loop's {@link PreparedPoll}: polls
     * until a completion arrives, as perftest does, and looks at the clock (for the timeout)
     * every {@code spinMask + 1} empty polls; fails on an error status. A poll returns
     * the status alone, so a successful wait reads nothing else of the completion; the caller
     * finds the rest in {@code poll.completion()}. Only the busy-poll is in this method: with the
     * clock and the channel path in it, C2 ran out of its node budget inlining it and the posts
     * into the latency loop and called them instead (research/notes/2026-11-25-jit-under-emulation.md).
     */
    void spin(PreparedPoll poll, String what) throws IOException {
        // One loop with one poll in it, as perftest's do { ibv_poll_cq } while (ne == 0): a first
        // poll peeled off the loop doubled the poll's code in the caller (two inlined copies per
        // wait) and ran it once more per iteration, ahead of the poll that finds the completion.
        long deadline = 0;
        int spins = 0;
        int status;
        while ((status = poll.poll()) == PreparedPoll.EMPTY) {
            IDLE.idle(++spins);   // busy-poll as perftest does
            if ((spins & spinMask) == 0) {
                deadline = checkDeadline(deadline, what);
            }
        }
        if (status != PreparedPoll.SUCCESS) {
            throw failed(what, poll.completion());
        }
    }

    /** Starts the wait's deadline on the first call; throws once it has passed. */
    long checkDeadline(long deadline, String what) throws IOException {
        long now = System.nanoTime();
        if (deadline == 0) {
            return now + timeoutNanos;
        }
        if (now - deadline > 0) {
            throw noCompletion(what);
        }
        return deadline;
    }

    /** take() with -e: arm, poll once more (a completion may have slipped in), then sleep on the channel. */
    private WorkCompletion takeWithEvents(CompletionQueue cq, String what) throws IOException {
        long deadline = 0;
        while (cq.poll(wc) == 0) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + timeoutNanos;
            }
            long left = deadline - now;
            if (left < 0) {
                throw noCompletion(what);
            }
            cq.requestNotification(false);
            if (cq.poll(wc) != 0) {
                break;
            }
            sleepOnChannel(side.channel, Duration.ofNanos(Math.min(left, 100_000_000L)));
        }
        if (!wc.isSuccess()) {
            throw failed(what, wc);
        }
        return wc;
    }

    /** Like {@link #take(CompletionQueue, String)} but gives up quietly (false) at the window's end. */
    private boolean takeUntil(CompletionQueue cq, String what, StopRule.Window w) throws IOException {
        long deadline = System.nanoTime() + timeoutNanos;
        int spins = 0;
        CompletionChannel channel = side.channel;
        while (cq.poll(wc) == 0) {
            IDLE.idle(++spins);
            if ((spins & 0xff) == 0) {
                long now = System.nanoTime();
                if (w.over(now)) {
                    return false;
                }
                if (now - deadline > 0) {
                    throw noCompletion(what);
                }
                if (channel != null) {
                    cq.requestNotification(false);
                    if (cq.poll(wc) != 0) {
                        break;
                    }
                    sleepOnChannel(channel, Duration.ofMillis(Math.max(1, Math.min(100, (w.end() - now) / 1_000_000))));
                }
            }
        }
        if (!wc.isSuccess()) {
            throw failed(what, wc);
        }
        return true;
    }

    /** Sleeps on the completion channel until an event or {@code bound}; the caller polls either way. */
    private static void sleepOnChannel(CompletionChannel channel, Duration bound) {
        try {
            channel.await(bound);
        } catch (RdmaTimeoutException quiet) {
            // nothing arrived within the bound: the caller's loop checks its own deadline
        }
    }

    // Built out of line so that take() stays small enough for the JIT to inline into the loops.
    RdmaTimeoutException noCompletion(String what) {
        return new RdmaTimeoutException("no " + what + " completion", "the test's completion queues", timeout, STALLED);
    }

    /** The API's WorkCompletionException as the cause: its message names the status, wr_id and queue pair. */
    static IOException failed(String what, WorkCompletion wc) {
        try {
            wc.checkSuccess();
            return new IOException(what + " failed: " + wc.status());
        } catch (WorkCompletionException e) {
            return new IOException(what + " failed: " + e.getMessage(), e);
        }
    }

    /** {@code c} if it succeeded; the failure otherwise. */
    static WorkCompletion succeeded(WorkCompletion c, String what) throws IOException {
        if (!c.isSuccess()) {
            throw failed(what, c);
        }
        return c;
    }

    /** Polls up to a batch; with -e sleeps on the channel (up to 100 ms) when the CQ is empty. */
    int pollBatch(CompletionQueue cq) {
        int ne = poll(cq);
        if (ne == 0 && side.channel != null) {
            cq.requestNotification(false);
            ne = poll(cq);
            if (ne == 0) {
                sleepOnChannel(side.channel, Duration.ofMillis(100));
            }
        }
        return ne;
    }

    /** Polls up to a batch without sleeping (the loops that wait on both CQs, see {@link #awaitEither}). */
    int poll(CompletionQueue cq) {
        PollSize p = cq == side.recvCq && cq != side.sendCq ? recvPoll : sendPoll;
        int ne = cq.poll(batch, p.size());
        p.polled(ne);
        return ne;
    }

    /**
     * -e in the loops that wait on both CQs: an idle pass arms both, the next one (which polls
     * once more, in case a completion slipped in) sleeps on the channel. Returns whether the CQs
     * are armed now; without -e it does nothing.
     */
    boolean awaitEither(boolean armed) {
        if (side.channel == null) {
            return false;
        }
        if (armed) {
            sleepOnChannel(side.channel, Duration.ofMillis(100));
            return false;
        }
        side.sendCq.requestNotification(false);
        side.recvCq.requestNotification(false);
        return true;
    }
}
