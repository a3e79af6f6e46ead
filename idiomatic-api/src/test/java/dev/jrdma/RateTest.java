// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.testing.Exercises;
import org.junit.jupiter.api.Test;

/** The rate helpers are pure functions of libibverbs: no device needed. */
class RateTest {
    @Test
    @Exercises({"ibv_rate_to_mult", "mult_to_ibv_rate", "ibv_rate_to_mbps", "mbps_to_ibv_rate"})
    void ratesConvertBothWays() {
        assertEquals(4, Rate.GBPS_10.multiplier());
        assertEquals(16, Rate.GBPS_40.multiplier());
        assertEquals(-1, Rate.GBPS_100.multiplier(), "103.125 Gb/s is no multiple of 2.5");
        assertEquals(-1, Rate.MAX.multiplier());
        assertEquals(Rate.GBPS_10, Rate.ofMultiplier(4));
        assertEquals(Rate.MAX, Rate.ofMultiplier(3), "7.5 Gb/s is no rate");
        assertEquals(25781, Rate.GBPS_25.mbps());
        assertEquals(103125, Rate.GBPS_100.mbps());
        assertEquals(Rate.GBPS_25, Rate.ofMbps(25781));
        assertEquals(Rate.MAX, Rate.ofMbps(25000), "only the line rates libibverbs lists");
        for (Rate rate : Rate.values()) {
            if (rate != Rate.MAX) {
                assertEquals(rate, Rate.ofMbps(rate.mbps()), rate.toString());
            }
        }
    }
}
