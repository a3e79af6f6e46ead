// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class UninterruptibleTest {
    /** An interrupt during the wait neither ends it nor gets lost: the step runs again, the flag is set after. */
    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anInterruptRestartsTheStepAndIsKeptForTheCaller() throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        AtomicInteger steps = new AtomicInteger();
        boolean[] interruptedAfter = new boolean[1];
        Thread waiter = Thread.ofPlatform().start(() -> {
            Uninterruptible.awaitWhile(() -> gone.getCount() > 0, () -> {
                steps.incrementAndGet();
                gone.await();
            });
            interruptedAfter[0] = Thread.currentThread().isInterrupted();
        });
        while (waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        waiter.interrupt();
        while (steps.get() < 2 || waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        assertTrue(waiter.isAlive(), "the interrupt did not end the wait");
        gone.countDown();
        waiter.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(waiter.isAlive());
        assertEquals(2, steps.get());
        assertTrue(interruptedAfter[0], "the interrupt is set again once the wait is over");
    }

    @Test
    void nothingPendingMeansNoStep() {
        Uninterruptible.awaitWhile(() -> false, () -> {
            throw new AssertionError("no step when nothing is pending");
        });
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
