// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import java.time.Duration;

/** The bound of a wait in the milliseconds that a socket timeout and rdma_cm's resolutions take. */
public final class Timeouts {
    private Timeouts() {}

    /**
     * {@return {@code timeout} in whole milliseconds, at most {@code Integer.MAX_VALUE}}
     *
     * @throws IllegalArgumentException if it is under a millisecond (0 would mean "no bound" to a socket)
     */
    public static int millis(Duration timeout) {
        long millis = timeout.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException("the timeout must be positive: " + timeout);
        }
        return (int) Math.min(Integer.MAX_VALUE, millis);
    }
}
