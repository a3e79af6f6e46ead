// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static dev.jrdma.tools.perftest.PerftestSchedule.Step.CLOSE;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.CM_CONNECT;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.CM_SYNC;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.CONNECT;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.FINISH;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.KEYS;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.REPORT;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.RUN;
import static dev.jrdma.tools.perftest.PerftestSchedule.Step.SYNC;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.PerftestSchedule.Options;
import dev.jrdma.tools.perftest.PerftestSchedule.Step;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The schedules the golden captures do not cover (those are replayed byte for byte in
 * {@link GoldenReplayTest}), written down from perftest 6.06's main() functions.
 */
class PerftestScheduleTest {
    private static final Options B = new Options(true, false, false);
    private static final Options B_D = new Options(true, true, false);
    private static final Options D = new Options(false, true, false);
    private static final Options R = new Options(false, false, true);

    @Test
    void sendBwBidirectionalSweepReportsEachSizeBeforeTheBarrier() {
        List<Step> s = PerftestSchedule.of(TestKind.SEND_BW, false, 2, B);
        assertEquals(List.of(KEYS, CONNECT, SYNC, KEYS, SYNC, RUN, REPORT, SYNC, SYNC, RUN, REPORT, SYNC, FINISH), s);
    }

    @Test
    void sendBwBidirectionalDurationRunExchangesNoReport() {
        // send_bw.c: "if (duplex && test_type != DURATION) xchg_bw_reports".
        assertEquals(List.of(KEYS, CONNECT, SYNC, KEYS, SYNC, RUN, FINISH),
                PerftestSchedule.of(TestKind.SEND_BW, true, 1, B_D));
    }

    @Test
    void writeAndReadBwBidirectionalSweepSyncBetweenRunAndReport() {
        for (TestKind k : List.of(TestKind.WRITE_BW, TestKind.READ_BW)) {
            List<Step> s = PerftestSchedule.of(k, true, 2, B);
            assertEquals(List.of(KEYS, CONNECT, KEYS, SYNC, SYNC, RUN, SYNC, REPORT, SYNC, RUN, SYNC, REPORT, FINISH), s, k.name());
            // Both sides run: the server's list is the same.
            assertEquals(s, PerftestSchedule.of(k, false, 2, B));
        }
    }

    @Test
    void writeBwBidirectionalDurationStillReports() {
        // write_bw.c reports after a duplex run whatever the test type.
        assertEquals(List.of(KEYS, CONNECT, KEYS, SYNC, SYNC, RUN, REPORT, FINISH),
                PerftestSchedule.of(TestKind.WRITE_BW, false, 1, B_D));
    }

    @Test
    void atomicBwBidirectionalSweepIsOneRun() {
        assertEquals(List.of(KEYS, CONNECT, KEYS, SYNC, SYNC, RUN, REPORT, FINISH),
                PerftestSchedule.of(TestKind.ATOMIC_BW, true, 1, B));
    }

    @ParameterizedTest
    @EnumSource(TestKind.class)
    void durationDoesNotChangeTheOrderWithoutB(TestKind kind) {
        for (boolean client : new boolean[] {true, false}) {
            assertEquals(PerftestSchedule.of(kind, client, 1), PerftestSchedule.of(kind, client, 1, D));
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestKind.class, names = {"SEND_LAT", "WRITE_LAT", "READ_LAT", "ATOMIC_LAT"})
    void bidirectionalIsRefusedForLatencyTests(TestKind kind) {
        assertThrows(IllegalArgumentException.class, () -> PerftestSchedule.of(kind, true, 1, B));
    }

    @ParameterizedTest
    @EnumSource(TestKind.class)
    void rdmaCmWrapsTheConnectInZeroSyncsAndEndsWithoutDone(TestKind kind) {
        for (boolean client : new boolean[] {true, false}) {
            List<Step> tcp = PerftestSchedule.of(kind, client, 1);
            List<Step> cm = PerftestSchedule.of(kind, client, 1, R);
            assertEquals(List.of(CM_SYNC, CM_CONNECT, CM_SYNC), cm.subList(0, 3));
            assertFalse(cm.contains(CONNECT), cm.toString());
            assertFalse(cm.contains(FINISH), cm.toString());
            assertEquals(CLOSE, cm.get(cm.size() - 1));
            // The rest is the TCP order with CONNECT removed and FINISH spelled SYNC + CLOSE.
            List<Step> expected = new java.util.ArrayList<>(tcp);
            expected.remove(CONNECT);
            if (expected.get(expected.size() - 1) == FINISH) {
                expected.set(expected.size() - 1, SYNC);
                expected.add(CLOSE);
            }
            assertEquals(expected, cm.subList(3, cm.size()), kind + (client ? " client" : " server"));
        }
    }

    @Test
    void writeLatWithRdmaCmStillHasNoFinalSync() {
        assertEquals(List.of(CM_SYNC, CM_CONNECT, CM_SYNC, SYNC, KEYS, KEYS, SYNC, RUN, CLOSE),
                PerftestSchedule.of(TestKind.WRITE_LAT, true, 1, R));
    }

    @Test
    void thePassiveServerWaitsForTheClientsRunAtItsSecondSync() {
        // write_bw server: KEYS CONNECT KEYS SYNC | SYNC REPORT FINISH; the client runs before its second sync.
        assertEquals(List.of(false, false, false, false, true, false, false),
                PerftestSchedule.afterPeerRun(TestKind.WRITE_BW, false, 1, Options.DEFAULT));
        // The client never waits for a server run: the passive server has none.
        assertFalse(PerftestSchedule.afterPeerRun(TestKind.WRITE_BW, true, 1, Options.DEFAULT).contains(true));
        // read_lat server: its final sync comes right after connecting and waits for the client's run.
        assertEquals(List.of(false, false, false, false, false, true),
                PerftestSchedule.afterPeerRun(TestKind.READ_LAT, false, 1, Options.DEFAULT));
    }

    @ParameterizedTest
    @EnumSource(TestKind.class)
    void everyExchangeAfterARunOfBothSidesIsMarked(TestKind kind) {
        for (boolean client : List.of(true, false)) {
            for (Options o : kind.bandwidth() ? List.of(Options.DEFAULT, B, R) : List.of(Options.DEFAULT, R)) {
                List<Step> steps = PerftestSchedule.of(kind, client, 3, o);
                List<Boolean> marks = PerftestSchedule.afterPeerRun(kind, client, 3, o);
                assertEquals(steps.size(), marks.size());
                for (int i = 0; i < steps.size(); i++) {
                    if (marks.get(i)) {
                        assertTrue(List.of(KEYS, SYNC, CM_SYNC, REPORT, FINISH).contains(steps.get(i)), steps.toString());
                    }
                }
                boolean bothRun = PerftestSchedule.of(kind, !client, 3, o).contains(RUN) && steps.contains(RUN);
                if (bothRun) {
                    // Symmetric runs: whatever follows my last run waits for the peer's last run too.
                    int lastRun = steps.lastIndexOf(RUN);
                    int next = lastRun + 1;
                    while (next < steps.size() && steps.get(next) == CLOSE) {
                        next++;
                    }
                    if (next < steps.size()) {
                        assertTrue(marks.get(next), kind + " " + client + " " + o + ": " + steps + " " + marks);
                    }
                }
            }
        }
    }

    @Test
    void udSweepEndsAtTheMtu() {
        assertEquals(List.of(2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 1024L), PerftestSchedule.udSweep(1024));
        assertEquals(8, PerftestSchedule.udSweep(256).size());
        assertEquals(4096L, PerftestSchedule.udSweep(4096).get(11));
        assertThrows(IllegalArgumentException.class, () -> PerftestSchedule.udSweep(1000));
        assertThrows(IllegalArgumentException.class, () -> PerftestSchedule.udSweep(8192));
    }

    @Test
    void udSizeIsLoweredToTheMtuUnlessGivenExplicitly() {
        assertEquals(1024, PerftestSchedule.udSize(65536, false, 1024));   // send_bw's default size
        assertEquals(2, PerftestSchedule.udSize(2, true, 1024));
        assertEquals(1024, PerftestSchedule.udSize(1024, true, 1024));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PerftestSchedule.udSize(2048, true, 1024));
        assertTrue(e.getMessage().startsWith("option '--size' (-s)"), e.getMessage());
    }

    @Test
    void sweepLengthsMatchTheCaptures() {
        // ib_send_lat -c UD -a: 3 key messages, 10 x (sync, run), final sync.
        List<Step> s = PerftestSchedule.of(TestKind.SEND_LAT, true, PerftestSchedule.udSweep(1024).size());
        assertEquals(3 + 10 + 1, Collections.frequency(s, KEYS) + Collections.frequency(s, SYNC)
                + Collections.frequency(s, FINISH));
    }
}
