// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The close-while-calling stress of the concurrent-close tests: rounds that each build some
 * objects, start threads calling them in loops ({@link Workers}), close one target at a random
 * moment and then everything, and record a worker that does not end with
 * IllegalStateException. The seed of the random moments is {@code -Djrdma.test.seed}, else the
 * clock; every failure names it.
 */
final class CloseStress {
    /** Bounds each worker's stop after everything is closed: a hang is a failure, not a wait. */
    static final Duration WORKER_STOP = Duration.ofSeconds(20);

    /** A worker's loop body; it runs until a call throws. */
    interface Step {
        void run();
    }

    /** One round, closing {@code target} first: builds its objects and calls {@link #closeWhileRunning} once. */
    interface Round<T> {
        void run(T target) throws Exception;
    }

    private final long seed = Long.getLong("jrdma.test.seed", System.nanoTime());
    private final Random random = new Random(seed);
    private final AtomicLong calls = new AtomicLong();
    private final List<String> failures = new ArrayList<>();
    private int rounds;
    private long closeAfterMicros;
    private String round;

    /**
     * Runs {@code count} rounds with the targets in turn, each closing its target after a random
     * 0 to {@code closeWithinMicros} us, and stops at the first round that fails.
     *
     * @return this stress, for {@link #assertWorkersEndedCleanly}
     */
    <T> CloseStress rounds(String kind, int count, T[] targets, int closeWithinMicros, Round<T> body)
            throws Exception {
        for (int i = 0; i < count && failures.isEmpty(); i++) {
            T target = targets[i % targets.length];
            closeAfterMicros = random.nextInt(closeWithinMicros);
            round = kind + " " + i + " (seed " + seed + ", " + target + " closed after " + closeAfterMicros + " us)";
            body.run(target);
            rounds++;
        }
        return this;
    }

    /** No round failed, and the workers made more than {@code perRound} calls a round on average. */
    void assertWorkersEndedCleanly(long perRound) {
        assertEquals(List.of(), failures);
        assertTrue(calls.get() > rounds * perRound, "the workers made " + calls.get() + " calls in " + rounds
                + " rounds");
    }

    /**
     * The current round: runs each step in a loop on its own thread, closes {@code first} after
     * the round's moment and then {@code last}, and records a worker that does not stop with
     * IllegalStateException.
     */
    void closeWhileRunning(List<Step> steps, AutoCloseable first, AutoCloseable last) throws Exception {
        Workers workers = Workers.start(steps, calls);
        try {
            workers.awaitStarted();
            TimeUnit.MICROSECONDS.sleep(closeAfterMicros);
            first.close();
            TimeUnit.MICROSECONDS.sleep(500);
        } finally {
            last.close();
        }
        for (String failure : workers.stop(WORKER_STOP)) {
            failures.add(round + ": " + failure);
        }
    }

    /** Threads that each run a step in a loop, counting the calls, until a call throws. */
    static final class Workers {
        private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final CountDownLatch started;
        private final CountDownLatch stoppedByClose;
        private final List<Thread> threads = new ArrayList<>();

        private Workers(int n) {
            started = new CountDownLatch(n);
            stoppedByClose = new CountDownLatch(n);
        }

        static Workers start(List<Step> steps, AtomicLong calls) {
            Workers w = new Workers(steps.size());
            for (Step step : steps) {
                w.threads.add(Thread.ofPlatform().daemon().start(() -> {
                    w.started.countDown();
                    try {
                        while (!w.stop.get()) {
                            step.run();
                            calls.incrementAndGet();
                        }
                    } catch (IllegalStateException expected) {
                        w.stoppedByClose.countDown();
                    } catch (Throwable t) {
                        w.unexpected.add(t);
                    }
                }));
            }
            return w;
        }

        void awaitStarted() throws InterruptedException {
            started.await();
        }

        /**
         * Waits up to {@code bound} for every worker to end with IllegalStateException, then
         * stops the rest.
         *
         * @return what went wrong, in words: empty when every worker ended so
         */
        List<String> stop(Duration bound) throws InterruptedException {
            List<String> failures = new ArrayList<>();
            boolean allStopped = stoppedByClose.await(bound.toMillis(), TimeUnit.MILLISECONDS);
            stop.set(true);
            for (Thread w : threads) {
                w.join(bound.toMillis());
                if (w.isAlive()) {
                    failures.add("a worker still runs " + bound + " after everything was closed");
                }
            }
            for (Throwable t : unexpected) {
                failures.add(String.valueOf(t));
            }
            if (!allStopped && unexpected.isEmpty()) {
                failures.add(stoppedByClose.getCount() + " worker(s) did not end with IllegalStateException after"
                        + " everything was closed");
            }
            return failures;
        }
    }
}
