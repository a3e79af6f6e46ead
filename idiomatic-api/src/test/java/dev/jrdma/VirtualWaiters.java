// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;

/**
 * Virtual threads that each make one blocking wait, started together, and what each wait
 * returned or threw: the many-waiters tests check that such waits sleep rather than hold their
 * carriers.
 */
final class VirtualWaiters {
    /** The threads, by number. */
    final List<Thread> threads = new ArrayList<>();
    private final AtomicReferenceArray<Object> results;

    private VirtualWaiters(int count) {
        results = new AtomicReferenceArray<>(count);
    }

    /**
     * Starts {@code count} virtual threads, {@code name-0} onwards, thread {@code n} running
     * {@code wait.apply(n)}, and returns once all have begun: a wait that holds its carrier keeps
     * the others from starting, which fails here, naming how many did within {@code startLimit}.
     */
    static VirtualWaiters start(String name, int count, IntFunction<Object> wait, Duration startLimit)
            throws InterruptedException {
        VirtualWaiters waiters = new VirtualWaiters(count);
        CountDownLatch started = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            int n = i;
            waiters.threads.add(Thread.ofVirtual().name(name + "-" + i).start(() -> {
                started.countDown();
                try {
                    waiters.results.set(n, wait.apply(n));
                } catch (RuntimeException e) {
                    waiters.results.set(n, e);
                }
            }));
        }
        assertTrue(started.await(startLimit.toSeconds(), TimeUnit.SECONDS),
                (count - started.getCount()) + " of " + count + " " + name + "s started: the waits hold their carriers");
        return waiters;
    }

    /** Asserts that every thread ends within {@code limit}, the message naming it and saying {@code after}. */
    void joinAll(Duration limit, String after) throws InterruptedException {
        for (Thread t : threads) {
            assertTrue(t.join(limit), t + " did not end" + after);
        }
    }

    /** {@return what wait {@code n} returned, or the exception it threw} */
    Object result(int n) {
        return results.get(n);
    }
}
