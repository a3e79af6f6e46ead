// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The millisecond bound the socket waits and rdma_cm's resolutions get from a Duration. */
class TimeoutsTest {
    @Test
    void aTimeoutIsWholeMillisecondsCappedAtIntMax() {
        assertEquals(1500, Timeouts.millis(Duration.ofMillis(1500)));
        assertEquals(1, Timeouts.millis(Duration.ofNanos(1_999_999)));
        assertEquals(Integer.MAX_VALUE, Timeouts.millis(Duration.ofDays(365)));
    }

    @Test
    void underAMillisecondIsRefusedNamingTheTimeout() {
        for (Duration d : new Duration[] {Duration.ZERO, Duration.ofNanos(999_999), Duration.ofSeconds(-1)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Timeouts.millis(d));
            assertEquals("the timeout must be positive: " + d, e.getMessage());
        }
    }
}
