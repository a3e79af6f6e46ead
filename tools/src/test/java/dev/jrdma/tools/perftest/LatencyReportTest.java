// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LatencyReportTest {
    private static final double EPS = 1e-9;

    /** Post timestamps whose consecutive differences are the given deltas (ns). */
    private static long[] posts(long... deltas) {
        long[] t = new long[deltas.length + 1];
        t[0] = 1_000_000_000L;
        for (int i = 0; i < deltas.length; i++) {
            t[i + 1] = t[i] + deltas[i];
        }
        return t;
    }

    @Test
    void handComputedRoundTripSample() {
        // 10 iterations -> 9 deltas; halved (send/write round trips) they are, in us:
        // 5, 6, 5.5, 6.5, 25, 5.25, 5.75, 6.25, 45
        // sorted: 5 5.25 5.5 5.75 6 6.25 6.5 | 25 45  (the two largest are left out: m = 7)
        LatencyReport r = LatencyReport.fromPostTimes(2,
                posts(10_000, 12_000, 11_000, 13_000, 50_000, 10_500, 11_500, 12_500, 90_000), true);
        assertEquals(2, r.size());
        assertEquals(10, r.iters());
        assertEquals(5.0, r.tMin(), EPS);
        assertEquals(25.0, r.tMax(), EPS, "t_max is sorted[m]: the second largest delta");
        assertEquals(5.75, r.tTypical(), EPS, "median of 7 kept = sorted[3]");
        assertEquals(40.25 / 7, r.tAvg(), EPS);
        // deviations -0.75 .. 0.75 in steps of 0.25: sum of squares 1.75, / 7 = 0.25, sqrt = 0.5.
        // perftest 6.06 prints 0.00 here: it truncates every deviation to a whole microsecond.
        assertEquals(0.5, r.tStdev(), EPS);
        assertEquals(25.0, r.p99(), EPS, "sorted[ceil(0.99 * 7)] = sorted[7]");
        assertEquals(25.0, r.p999(), EPS);
        assertArrayEquals(new double[] {5, 5.25, 5.5, 5.75, 6, 6.25, 6.5}, r.samplesUs(), EPS);
    }

    @Test
    void readAndAtomicDeltasAreNotHalvedAndEvenMedianAverages() {
        // 11 iterations -> 10 deltas (us): 1..8, 100, 200; m = 8 -> median (4 + 5) / 2
        LatencyReport r = LatencyReport.fromPostTimes(8,
                posts(3_000, 1_000, 8_000, 2_000, 100_000, 5_000, 4_000, 200_000, 7_000, 6_000), false);
        assertEquals(1.0, r.tMin(), EPS);
        assertEquals(4.5, r.tTypical(), EPS);
        assertEquals(4.5, r.tAvg(), EPS);
        assertEquals(100.0, r.tMax(), EPS);
        assertEquals(Math.sqrt(42.0 / 8), r.tStdev(), EPS);   // (3.5^2+2.5^2+1.5^2+0.5^2)*2 = 42
        assertEquals(100.0, r.p99(), EPS);   // ceil(7.92) = 8
        assertEquals(100.0, r.p999(), EPS);
    }

    @Test
    void percentileIndexesFollowPerftestFor1000Iterations() {
        long[] deltas = new long[999];
        for (int i = 0; i < deltas.length; i++) {
            deltas[i] = (i + 1) * 1000L;   // 1 .. 999 us, not halved
        }
        LatencyReport r = LatencyReport.fromDeltas(2, 1000, deltas, 1);
        // m = 997; 99% = sorted[ceil(987.03)] = sorted[988] = 989 us; 99.9% = sorted[997] = 998 us = t_max
        assertEquals(989.0, r.p99(), EPS);
        assertEquals(998.0, r.p999(), EPS);
        assertEquals(998.0, r.tMax(), EPS);
        assertEquals(499.0, r.tTypical(), EPS);   // m odd: sorted[498]
    }

    @Test
    void minimumIterations() {
        assertThrows(IllegalArgumentException.class, () -> LatencyReport.fromPostTimes(2, posts(1, 2, 3), true));
        LatencyReport r = LatencyReport.fromPostTimes(2, posts(4_000, 2_000, 8_000, 6_000), false);
        // 4 deltas, m = 2: kept 2 and 4 us; t_max = sorted[2] = 6
        assertEquals(3.0, r.tTypical(), EPS);
        assertEquals(6.0, r.tMax(), EPS);
        assertEquals(6.0, r.p99(), EPS);
    }

    @Test
    void histogramExportHasTheKeptSamples() {
        LatencyReport r = LatencyReport.fromPostTimes(2,
                posts(10_000, 12_000, 11_000, 13_000, 50_000, 10_500, 11_500, 12_500, 90_000), true);
        assertEquals(7, r.histogram().getTotalCount());
        assertEquals(6.5, r.histogram().getMaxValue() / 1000.0, 0.01);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        r.writePercentileDistribution(new PrintStream(buf, true, StandardCharsets.UTF_8));
        String text = buf.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("Value     Percentile TotalCount 1/(1-Percentile)"), text);
        assertTrue(text.contains("#[Max     =        6.503, Total count    =            7]"), text);
    }

    @Test
    void rowMatchesPerftestLayout() {
        // The client row of the captured ib_send_lat run, rebuilt from its printed values.
        LatencyReport r = new LatencyReport(2, 100, 10.01, 309.57, 10.23, 12.27, 15.76, 309.57, 309.57, new double[0]);
        List<String> golden = Golden.lines("ib_send_lat.client.txt");
        String captured = golden.get(golden.size() - 2);
        assertEquals(captured + "\n", PerftestFormat.latencyRow(r));
    }
}
