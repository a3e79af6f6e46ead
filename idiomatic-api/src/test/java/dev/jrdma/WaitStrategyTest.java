// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The wait strategies and the CQ waits that use them, on the stub provider (no device): the
 * idle steps a wait takes, the backoff's park times, the default's choice by thread, interrupts,
 * allocation, and that virtual threads waiting with the default leave their carriers free while
 * busy-spinning ones do not.
 */
class WaitStrategyTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void backoffParksDoubleFromTheMinimumUpToTheMaximum() {
        var b = (WaitStrategies.Backoff) WaitStrategy.backoff(5, 3, Duration.ofNanos(1_000), Duration.ofNanos(20_000));
        assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 20_000L, 20_000L),
                List.of(b.park(0), b.park(1), b.park(2), b.park(3), b.park(4), b.park(5), b.park(6)));
        assertEquals(20_000L, b.park(Integer.MAX_VALUE - 9), "no overflow of the shift");
        var one = (WaitStrategies.Backoff) WaitStrategy.backoff(0, 0, Duration.ofNanos(1), Duration.ofNanos(Long.MAX_VALUE));
        assertEquals(1L << 61, one.park(61));
        assertEquals(1L << 62, one.park(62));
        assertEquals(Long.MAX_VALUE, one.park(63));
        assertEquals(WaitStrategies.BACKOFF, WaitStrategy.backoff(100, 10, Duration.ofNanos(10_000),
                Duration.ofMillis(10)), "the documented defaults");
        assertThrows(IllegalArgumentException.class, () -> WaitStrategy.backoff(-1, 0, Duration.ofNanos(1), Duration.ofNanos(1)));
        assertThrows(IllegalArgumentException.class, () -> WaitStrategy.backoff(0, 0, Duration.ZERO, Duration.ofNanos(1)));
        assertThrows(IllegalArgumentException.class,
                () -> WaitStrategy.backoff(0, 0, Duration.ofNanos(2), Duration.ofNanos(1)));
    }

    @Test
    void threadAwareChoosesByTheCallingThread() throws Exception {
        List<String> calls = new ArrayList<>();
        WaitStrategy s = new WaitStrategies.ThreadAware(n -> calls.add("virtual " + n), n -> calls.add("platform " + n));
        s.idle(1);
        Thread.ofVirtual().start(() -> s.idle(2)).join();
        Thread.ofPlatform().start(() -> s.idle(3)).join();
        assertEquals(List.of("platform 1", "virtual 2", "platform 3"), calls);
    }

    @Test
    void backoffsParkOnceTheirSpinsAndYieldsAreSpentAndOnlyThey() throws Exception {
        WaitStrategy b = WaitStrategy.backoff(5, 3, Duration.ofNanos(1_000), Duration.ofNanos(20_000));
        assertEquals(List.of(false, false, true, true), List.of(b.parks(1), b.parks(8), b.parks(9),
                b.parks(Integer.MAX_VALUE)));
        assertTrue(WaitStrategy.backoff(0, 0, Duration.ofNanos(1), Duration.ofNanos(1)).parks(1));
        for (WaitStrategy never : List.of(WaitStrategy.busyPoll(), WaitStrategy.busySpin(), WaitStrategy.yielding(),
                n -> { })) {
            assertFalse(never.parks(1) || never.parks(Integer.MAX_VALUE), never.toString());
        }
        WaitStrategy aware = WaitStrategy.threadAware();
        int spent = WaitStrategies.SPINS + WaitStrategies.YIELDS;
        List<Boolean> onVirtual = new ArrayList<>();
        Thread.ofVirtual().start(() -> onVirtual.addAll(List.of(aware.parks(spent), aware.parks(spent + 1)))).join();
        assertEquals(List.of(false, true), onVirtual, "a virtual thread parks after the backoff's spins and yields");
        assertFalse(aware.parks(spent + 1), "a platform thread spins");
    }

    @Test
    void aWaitCountsItsEmptyPollsAndEndsAtItsTimeout() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        List<Integer> steps = new ArrayList<>();
        assertFalse(f.sendCq().poll(new WorkCompletion(), Duration.ofMillis(20), steps::add));
        assertFalse(steps.isEmpty());
        for (int i = 0; i < steps.size(); i++) {
            assertEquals(i + 1, steps.get(i));
        }
        RdmaTimeoutException e = assertThrows(RdmaTimeoutException.class,
                () -> f.sendCq().take(new WorkCompletion(), Duration.ZERO, WaitStrategy.busySpin()));
        assertTrue(e.getMessage().contains("no completion"), e.getMessage());
    }

    @Test
    void aCompletionThatArrivesWhileIdleIsTaken() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        SendRequest send = new SendRequest().wrId(42).sge(f.mr(), 0, 8).signaled(true);
        AtomicInteger idles = new AtomicInteger();
        WaitStrategy postOnThird = n -> {
            idles.incrementAndGet();
            if (n == 3) {
                f.qp().post(send);
            }
        };
        WorkCompletion wc = f.sendCq().take(new WorkCompletion(), LONG, postOnThird);
        assertEquals(42, wc.wrId());
        assertEquals(3, idles.get(), "the completion is polled right after the idle step that made it");
        f.qp().post(send.wrId(43));
        assertTrue(f.sendCq().poll(wc, LONG, n -> {
            throw new AssertionError("idle step " + n + " with a completion waiting");
        }));
        assertEquals(43, wc.wrId());
    }

    /** The guide's example of choosing a strategy (docs/guide/applications.md). */
    @Test
    void strategiesAsTheGuideChoosesThem() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        CompletionQueue cq = f.sendCq();
        WorkCompletion wc = new WorkCompletion();
        Duration timeout = Duration.ofSeconds(5);
        SendRequest send = new SendRequest().sge(f.mr(), 0, 8).signaled(true);
        f.qp().post(send.wrId(1));
        f.qp().post(send.wrId(2));
        // @start region="strategies"
        cq.take(wc, timeout, WaitStrategy.busySpin());          // a thread that owns its core
        cq.take(wc, timeout, WaitStrategy.backoff(0, 0,          // park at once: many idle waiters
                Duration.ofMillis(1), Duration.ofMillis(50)));
        // @end
        assertEquals(2, wc.wrId());
    }

    @Test
    void anInterruptNeitherEndsTheWaitNorIsLost() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        SendRequest send = new SendRequest().wrId(7).sge(f.mr(), 0, 8).signaled(true);
        WaitStrategy parks = WaitStrategy.backoff(0, 0, Duration.ofNanos(100_000), Duration.ofNanos(100_000));
        AtomicInteger idles = new AtomicInteger();
        WaitStrategy postOnFifth = n -> {
            idles.incrementAndGet();
            parks.idle(n);
            if (n == 5) {
                f.qp().post(send);
            }
        };
        Thread.currentThread().interrupt();
        try {
            assertEquals(7, f.sendCq().take(new WorkCompletion(), LONG, postOnFifth).wrId());
            assertEquals(5, idles.get());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void waitingAllocatesNothing() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        WorkCompletion wc = new WorkCompletion();
        Duration timeout = Duration.ofNanos(20_000);
        WaitStrategy[] strategies = {WaitStrategy.threadAware(), WaitStrategy.busyPoll(), WaitStrategy.busySpin(),
            WaitStrategy.yielding(),
            WaitStrategy.backoff(), WaitStrategy.backoff(0, 0, Duration.ofNanos(1_000), Duration.ofNanos(1_000))};
        for (WaitStrategy s : strategies) {
            for (int i = 0; i < 2_000; i++) {
                f.sendCq().poll(wc, timeout, s);
            }
            // The least of 5 samples: a deoptimization or compilation meanwhile can allocate once
            // (seen on a loaded host); an allocation per wait would show in every sample.
            long least = Long.MAX_VALUE;
            for (int sample = 0; sample < 5 && least > 0; sample++) {
                long before = Allocations.allocatedBytes();
                for (int i = 0; i < 2_000; i++) {
                    f.sendCq().poll(wc, timeout, s);
                }
                least = Math.min(least, Allocations.since(before));
            }
            assertEquals(0, least, s.toString());
        }
    }

    /**
     * More virtual threads than carriers wait in {@code take} with the default strategy; each
     * counts down a latch before it waits, and the completions are posted only once all have: a
     * wait that held its carrier would keep the latch from reaching 0.
     */
    @Test
    void virtualThreadsWaitingWithTheDefaultLeaveTheirCarriersFree() throws Exception {
        int waiters = 4 * Runtime.getRuntime().availableProcessors() + 8;
        List<StubProvider.Fixture> fixtures = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            fixtures.add(StubProvider.open(4, 64));
        }
        CountDownLatch waiting = new CountDownLatch(waiters);
        List<AtomicReference<Object>> results = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            CompletionQueue cq = fixtures.get(i).sendCq();
            AtomicReference<Object> result = new AtomicReference<>();
            results.add(result);
            threads.add(Thread.ofVirtual().name("taker-" + i).start(() -> {
                waiting.countDown();
                try {
                    result.set(cq.take(new WorkCompletion(), LONG).wrId());
                } catch (RuntimeException e) {
                    result.set(e);
                }
            }));
        }
        assertTrue(waiting.await(LONG.toSeconds(), TimeUnit.SECONDS),
                (waiters - waiting.getCount()) + " of " + waiters + " waiters started: the waits hold their carriers");
        for (int i = 0; i < waiters; i++) {
            StubProvider.Fixture f = fixtures.get(i);
            f.qp().post(new SendRequest().wrId(1000 + i).sge(f.mr(), 0, 8).signaled(true));
        }
        for (int i = 0; i < waiters; i++) {
            assertTrue(threads.get(i).join(LONG), threads.get(i) + " did not end");
            assertEquals(1000L + i, results.get(i).get(), "waiter " + i);
        }
    }

    /** The control: virtual threads busy-spinning in {@code take} hold their carriers, so the latch stalls. */
    @Test
    void virtualThreadsBusySpinningHoldTheirCarriers() throws Exception {
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        int waiters = carriers + 1;
        List<StubProvider.Fixture> fixtures = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            fixtures.add(StubProvider.open(4, 64));
        }
        CountDownLatch waiting = new CountDownLatch(waiters);
        List<Thread> threads = new ArrayList<>();
        for (StubProvider.Fixture f : fixtures) {
            threads.add(Thread.ofVirtual().start(() -> {
                waiting.countDown();
                f.sendCq().poll(new WorkCompletion(), Duration.ofSeconds(2), WaitStrategy.busySpin());
            }));
        }
        assertFalse(waiting.await(1, TimeUnit.SECONDS), "all " + waiters + " started: a carrier was free");
        for (Thread t : threads) {
            assertTrue(t.join(LONG));
        }
    }
}
