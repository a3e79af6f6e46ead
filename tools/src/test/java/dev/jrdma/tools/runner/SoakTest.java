// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.BwReportData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --run_infinitely's periods and stop, -f's margins, --latency_gap and --cpu_util's arithmetic. */
class SoakTest {
    private static final long S = 1_000_000_000L;

    @Test
    void eachPeriodReportsItsOwnCountAndTheStopEndsTheLoop() {
        List<BwReportData> rows = new ArrayList<>();
        boolean[] peerStopped = {false};
        try (Soak soak = new Soak(1024, 2, 1, false, rows::add, () -> peerStopped[0])) {
            StopRule rule = StopRule.soak(soak);
            assertTrue(rule.timed() && rule.started());
            assertTrue(rule.completed(10 * S, 0), "the first check starts the first period");
            assertTrue(rule.completed(11 * S, 1000));
            assertTrue(rule.completed(12 * S, 1000));   // the period ends: 2000 messages in 2 s
            assertEquals(1, rows.size());
            BwReportData r = rows.getFirst();
            assertEquals(2000, r.iters());
            assertEquals(0, r.bwPeak(), "no peak, as perftest's soak");
            assertEquals(1000 * 1024 / (double) (1 << 20), r.bwAvg(), 1e-9);
            assertEquals(0.001, r.msgRate(), 1e-12);
            assertTrue(rule.completed(13 * S, 500));
            assertTrue(rule.completed(14 * S, 0));
            assertEquals(500, rows.get(1).iters(), "the count restarts each period");
            assertEquals(rows.get(1), soak.last());
            soak.stop();
            assertFalse(rule.completed(14 * S + 1, 1), "SIGINT's flag ends the loop at its next check");
            assertTrue(soak.interrupted());
        }
    }

    @Test
    void aPeerThatStoppedEndsTheLoopAtThePeriodsEnd() {
        List<BwReportData> rows = new ArrayList<>();
        try (Soak soak = new Soak(8, 1, 2, true, rows::add, () -> true)) {
            StopRule rule = StopRule.soak(soak);
            assertTrue(rule.completed(0, 0));
            assertTrue(rule.completed(S / 2, 10), "checked only when a period ends");
            assertFalse(rule.completed(S, 10));
            assertFalse(soak.interrupted());
            assertEquals(20, rows.getFirst().iters());
            assertEquals(2 * 20 * 8 / 125e6, rows.getFirst().bwAvg(), 1e-15, "-b: both directions, in Gb/s");
        }
    }

    @Test
    void marginIsTheWarmUpAndCoolDownOfTheWindow() {
        StopRule.Window w = StopRule.Window.from(0, 10, 3);
        assertEquals(3 * S, w.sampleStart());
        assertEquals(7 * S, w.sampleEnd());
        assertEquals(10 * S, w.end());
        assertEquals(StopRule.Window.from(0, 10), StopRule.Window.from(0, 10, -1), "default: a quarter");
        assertEquals(2 * S, StopRule.Window.from(0, 10, -1).sampleStart());
        StopRule zero = StopRule.window(4, 0, null, null);
        zero.start(0);
        assertEquals(4 * S, zero.window().length(), "-f 0: the whole duration is sampled");
    }

    @Test
    void latencyGapWaitsBeforeEachPost() {
        StopRule r = StopRule.count(5, true).withGap(2000);
        long start = System.nanoTime();
        r.beforePost();
        assertTrue(System.nanoTime() - start >= 2_000_000L);
        StopRule none = StopRule.count(5, true).withGap(0);
        none.beforePost();   // returns at once
    }

    @Test
    void cpuUtilisationIsUserOverUserAndIdle(@TempDir Path dir) throws IOException {
        assertEquals(List.of(100L, 400L), toList(CpuUsage.parse("cpu  100 5 50 400 3 0 1 0 0 0")));
        assertThrows(IllegalArgumentException.class, () -> CpuUsage.parse("cpu0 1 2 3 4"));
        assertEquals(25.0, CpuUsage.percent(100, 300));
        assertEquals(0.0, CpuUsage.percent(0, 0));
        Path stat = dir.resolve("stat");
        Files.writeString(stat, "cpu  100 5 50 400 3 0 1 0 0 0\ncpu0 1 2 3 4 5\n");
        CpuUsage u = new CpuUsage(stat);
        StopRule.Window w = StopRule.Window.from(0, 4, 1);
        u.at(S / 2, w);
        assertEquals(0.0, u.percent(), "nothing before the sample window");
        u.at(S, w);
        Files.writeString(stat, "cpu  160 5 60 420 3 0 1 0 0 0\n");
        u.at(2 * S, w);
        assertEquals(0.0, u.percent(), "inside the window: no read");
        u.at(3 * S, w);
        assertEquals(75.0, u.percent(), 1e-9, "60 user of 60 + 20 idle jiffies");
    }

    private static List<Long> toList(long[] a) {
        return List.of(a[0], a[1]);
    }
}
