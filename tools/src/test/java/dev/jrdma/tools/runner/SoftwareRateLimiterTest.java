// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.RateSettings.Type;
import dev.jrdma.tools.perftest.RateSettings.Units;
import org.junit.jupiter.api.Test;

/** The software limiter's schedule, driven by times the test chooses (no clock, no sleeping). */
class SoftwareRateLimiterTest {
    @Test
    void burstsStartOneGapApartFromTheSchedule() {
        SoftwareRateLimiter l = new SoftwareRateLimiter(1_000, 4);
        l.start(10_000);
        assertEquals(4, l.allowance(10_000), "the first burst goes at once");
        l.posted(3);
        assertEquals(1, l.allowance(10_100), "the rest of the burst, whatever the time");
        l.posted(1);
        assertEquals(0, l.allowance(10_999), "then nothing until the next deadline");
        assertEquals(4, l.allowance(11_000), "a new burst at start + gap");
        l.posted(4);
        assertEquals(12_000, l.deadline());
    }

    @Test
    void aLateBurstIsFollowedAtOnceSoTheAverageRateHolds() {
        SoftwareRateLimiter l = new SoftwareRateLimiter(1_000, 2);
        l.start(0);
        l.posted(l.allowance(0));
        // the loop was busy polling for 2.5 gaps: the deadlines stay on the grid of the start
        assertEquals(2, l.allowance(2_500));
        l.posted(2);
        assertEquals(2, l.allowance(2_500), "the 2000 burst was due too");
        l.posted(2);
        assertEquals(0, l.allowance(2_999));
        assertEquals(2, l.allowance(3_000));
    }

    @Test
    void postingMoreThanTheAllowanceEndsTheBurst() {
        SoftwareRateLimiter l = new SoftwareRateLimiter(500, 3);
        l.start(0);
        l.allowance(0);
        l.posted(5);   // a window posts whole cq-mod groups
        assertEquals(0, l.allowance(1));
    }

    @Test
    void aScheduleOverAMillionMessagesKeepsTheRate() {
        // 100000 messages/s of 64 bytes in bursts of 16: 160 us per burst
        RateSettings rate = new RateSettings(Type.SW, true, 100_000, Units.PPS, 16, 0);
        SoftwareRateLimiter l = SoftwareRateLimiter.of(rate, 64, 128);
        long now = 0;
        l.start(now);
        long sent = 0;
        while (sent < 1_000_000) {
            int n = l.allowance(now);
            if (n == 0) {
                now += 7_000;   // a poll round
                continue;
            }
            l.posted(n);
            sent += n;
        }
        // the last burst started at the last deadline before now: 1e6 / 16 bursts, 160 us apart
        assertEquals((1_000_000 / 16 - 1) * 160_000L, l.deadline() - 160_000);
        assertEquals(10.0, now / 1e9, 0.01, "a million messages at 100000/s take 10 s of the schedule");
    }

    @Test
    void defaultsAndUnits() {
        assertNull(SoftwareRateLimiter.of(RateSettings.DEFAULT, 64, 128), "no limiter without SW");
        // perftest: MiB/s -> limit / size * 2^20; Gb/s -> limit / (8 size) * 10^9
        RateSettings mib = new RateSettings(Type.SW, true, 1, Units.MIBPS, 0, 0);
        assertEquals(16_384, mib.packetsPerSecond(64));
        RateSettings gb = new RateSettings(Type.SW, true, 1, Units.GBPS, 0, 0);
        assertEquals(1_953_125, gb.packetsPerSecond(64));
        // burst 0 = the TX depth: 128 messages at 16384/s -> 7.8125 ms
        assertEquals(7_812_500, mib.burstGapNanos(64, 128));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RateSettings(Type.SW, true, 0.5, Units.PPS, 0, 0).packetsPerSecond(64));
        assertEquals("--rate_limit 0.5 p is less than one message of 64 bytes per second", e.getMessage());
    }
}
