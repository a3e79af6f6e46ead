// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * How often a busy-poll looks at the clock for its timeout: rarely enough to stay off a wait's
 * critical path, often enough that a stall ends at most an eighth of the timeout late.
 */
class CompletionsCadenceTest {
    @Test
    void theDefaultTimeoutLooksEvery2To21EmptyPolls() {
        assertEquals((1 << 21) - 1, Completions.spinMask(Duration.ofSeconds(60)));
    }

    @Test
    void aShortTimeoutKeepsTheFloorAndALongOneTheCap() {
        assertEquals((1 << 16) - 1, Completions.spinMask(Duration.ofSeconds(1)), "--timeout's least, 1 s");
        assertEquals((1 << 16) - 1, Completions.spinMask(Duration.ofMillis(1)));
        assertEquals((1 << 26) - 1, Completions.spinMask(Duration.ofSeconds(86_400)), "--timeout's most, a day");
    }

    @Test
    void aStalledWaitEndsAtMostAnEighthOfItsTimeoutLateAtTheSlowestPoll() {
        for (long seconds = 2; seconds <= 86_400; seconds = seconds * 3 / 2 + 1) {
            Duration timeout = Duration.ofSeconds(seconds);
            long cadence = Completions.spinMask(timeout) + 1L;
            assertEquals(0, cadence & (cadence - 1), "a power of two, for the mask: " + cadence);
            // The deadline starts at the first look; the stall is seen at the first look past it.
            long lateNanos = 2 * cadence * Completions.SLOWEST_POLL_NANOS;
            assertTrue(lateNanos <= timeout.toNanos() / 8, seconds + " s: " + lateNanos + " ns late");
            assertTrue(cadence >= Completions.MIN_SPINS_PER_CLOCK_READ, seconds + " s: " + cadence);
        }
    }

    @Test
    void aLongerTimeoutNeverLooksMoreOften() {
        int last = 0;
        for (long millis = 1; millis <= 86_400_000L; millis *= 2) {
            int mask = Completions.spinMask(Duration.ofMillis(millis));
            assertTrue(mask >= last, millis + " ms: " + mask + " < " + last);
            last = mask;
        }
    }
}
