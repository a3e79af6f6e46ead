// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import java.util.function.BooleanSupplier;

/**
 * The waits of a close that an interrupt must not cut short: a native object may be freed only
 * after the calls on it have returned (or a thread blocked in it has left), so the closing
 * thread waits them out whatever happens, and keeps its interrupt for the caller.
 */
public final class Uninterruptible {
    private Uninterruptible() {}

    /** One step of the wait: {@code Object.wait}, {@code Condition.await}, {@code Thread.join}. */
    @FunctionalInterface
    public interface Step {
        void await() throws InterruptedException;
    }

    /**
     * Waits with {@code step} while {@code pending} holds; an interrupt meanwhile only starts the
     * step again, and is set on the thread again once the wait is over.
     *
     * @param pending what is still being waited for, tested before each step
     * @param step    the wait itself; the caller holds whatever monitor or lock it needs
     */
    public static void awaitWhile(BooleanSupplier pending, Step step) {
        boolean interrupted = false;
        while (pending.getAsBoolean()) {
            try {
                step.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
