// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jrdma.tools.perftest.AddressSettings;
import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.CpuClock;
import dev.jrdma.tools.perftest.LatencyReport;
import dev.jrdma.tools.perftest.MemorySettings;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestFormat;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.PostSettings;
import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.ReportSettings;
import dev.jrdma.tools.perftest.RunSettings;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the report and run-control options print: perftest's text, character for character. */
class RunOutputReportsTest {
    private static final long[] POSTS = {0, 1_000, 3_000, 6_000, 10_000, 15_000, 21_000};   // deltas 1..6 us

    private static PerftestSettings settings(TestKind kind, int duration, boolean bidirectional, ReportSettings r,
                                             RunSettings run) {
        return new PerftestSettings(kind, "host", null, 1, 1, 18515, 0, TestKind.Connection.RC, false, 14, 7, 0,
                List.of(kind.defaultSize()), false, 7, duration, 1, 512, -1, 1, 1, bidirectional, true, false, false,
                -1, null, null, false, false, null, null, Duration.ofSeconds(60), 0, List.of(), r, run, PostSettings.DEFAULT,
                AddressSettings.DEFAULT, RateSettings.DEFAULT, MemorySettings.DEFAULT, OperationSettings.DEFAULT, -1, 0);
    }

    /** The output of a run with these report options and no run-control ones, printing to {@code w}. */
    private static RunOutput output(StringWriter w, TestKind kind, int duration, boolean bidirectional,
                                    ReportSettings r) {
        return new RunOutput(settings(kind, duration, bidirectional, r, RunSettings.DEFAULT), new PrintWriter(w));
    }

    private static ReportSettings reports(boolean cycles, boolean unsorted, boolean histogram, boolean cpu,
                                          boolean both, Path json) {
        return new ReportSettings(cycles, unsorted, histogram, List.of(), cpu, both, -1, json);
    }

    @Test
    void unsortedAndHistogramListsPrecedeTheRowAndTheHeaderFollowsAgain() throws Exception {
        StringWriter w = new StringWriter();
        RunOutput o = output(w, TestKind.SEND_LAT, 0, false, reports(false, true, true, false, false, null));
        o.open("rxe0", 1);
        LatencyReport r = LatencyReport.fromPostTimes(2, POSTS, true);
        o.latencyRow(r, POSTS);
        assertEquals("#, usec\n1, 0.5\n2, 1\n3, 1.5\n4, 2\n5, 2.5\n6, 3\n"
                + "#, usec\n1, 0.5\n2, 1\n3, 1.5\n4, 2\n"
                + PerftestFormat.LINE + "\n" + PerftestFormat.LAT_HEADER + "\n" + PerftestFormat.latencyRow(r), w.toString());
    }

    @Test
    void cyclesScaleTheRowAndTheListsByTheCpuClock() throws Exception {
        StringWriter w = new StringWriter();
        RunOutput o = output(w, TestKind.READ_LAT, 0, false, reports(true, false, true, false, false, null));
        o.open("rxe0", 1);
        double mhz = CpuClock.mhz();
        LatencyReport r = LatencyReport.fromPostTimes(2, POSTS, false);
        o.latencyRow(r, POSTS);
        String out = w.toString();
        assertTrue(out.startsWith("#, cycles\n1, " + dev.jrdma.tools.perftest.SampleList.g(mhz) + "\n"), out);
        assertTrue(out.contains(PerftestFormat.LAT_HEADER), "perftest's header keeps [usec]: " + out);
        String row = out.substring(out.lastIndexOf('\n', out.length() - 2) + 1);
        assertEquals(PerftestFormat.fixed(1 * mhz, 7, 2), row.strip().split("\\s+")[2], "t_min in cycles: " + row);
    }

    @Test
    void cpuUtilisationIsTheLastColumnOfADurationRun() {
        StringWriter w = new StringWriter();
        RunOutput o = output(w, TestKind.WRITE_BW, 4, false, reports(false, false, false, true, false, null));
        o.connection(List.of(peer()), List.of(peer()));
        o.cpuUtil(12.5);
        BwReportData r = new BwReportData(65536, 1000, 0, 40.5, 0.000648);
        o.bandwidthRow(r);
        String out = w.toString();
        assertTrue(out.contains(PerftestFormat.BW_HEADER + "    CPU_Util[%]\n"), out);
        String row = PerftestFormat.bandwidthRow(r, false);
        assertTrue(out.endsWith(row.substring(0, row.length() - 1) + "\t    12.50\n"), out);
    }

    @Test
    void reportBothPrintsEachDirectionUnderItsTitle() {
        StringWriter w = new StringWriter();
        RunOutput o = output(w, TestKind.ATOMIC_BW, 0, true, reports(false, false, false, false, true, null));
        BwReportData local = new BwReportData(8, 1000, 1, 2, 3);
        BwReportData remote = new BwReportData(8, 1000, 4, 5, 6);
        o.reportBoth(local, remote);
        String line = PerftestFormat.LINE + "\n";
        assertEquals(line + "\n Local results:\n" + line + PerftestFormat.BW_HEADER + "\n"
                + PerftestFormat.bandwidthRow(local, false) + line + "\n Remote results:\n" + line
                + PerftestFormat.BW_HEADER + "\n" + PerftestFormat.bandwidthRow(remote, false), w.toString(),
                "atomic_bw's titles have no space before the newline");
    }

    @Test
    void limitsPassWhenARowMeetsThem() {
        RunSettings limits = new RunSettings(false, 100, 0.5, 0, false, 0, false);
        RunOutput o = new RunOutput(settings(TestKind.WRITE_BW, 0, false, ReportSettings.DEFAULT, limits),
                new PrintWriter(new StringWriter()));
        o.bandwidthRow(new BwReportData(65536, 1000, 0, 99, 0.4));
        assertEquals("Error: BW result is below bw limit", o.verifierError());
        o.bandwidthRow(new BwReportData(65536, 1000, 0, 101, 0.4));
        assertEquals("Error: Msg rate  is below msg_rate limit", o.verifierError(), "-y on its own");
        o.bandwidthRow(new BwReportData(65536, 1000, 0, 1, 0.6));
        assertNull(o.verifierError(), "perftest ORs over the rows: one met each limit");
        RunOutput none = new RunOutput(settings(TestKind.WRITE_BW, 0, false, ReportSettings.DEFAULT,
                RunSettings.DEFAULT), new PrintWriter(new StringWriter()));
        assertNull(none.verifierError());
    }

    @Test
    void outJsonWritesTheJsonDocumentBesideTheText(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("perftest_out.json");
        StringWriter w = new StringWriter();
        RunOutput o = output(w, TestKind.WRITE_BW, 0, false, reports(false, false, false, false, false, file));
        o.bandwidthRow(new BwReportData(65536, 1000, 1, 2, 3));
        TestInfo info = new TestInfo(Verb.WRITE, null, true, false, true, "rxe0", 1, "IB", "RC", false, "ON", "OFF",
                128, 512, 1, 100, 1024, "Ethernet", 1, 0, 1, false, false, 0);
        o.finish(info, new java.util.LinkedHashMap<>(Map.of("test", "write-bw")), "6.06", List.of(peer()),
                List.of(peer()));
        assertTrue(w.toString().contains(PerftestFormat.bandwidthRow(new BwReportData(65536, 1000, 1, 2, 3), false)),
                "the text report is printed as usual");
        JsonNode doc = new ObjectMapper().readTree(file.toFile());
        assertEquals(65536, doc.path("bandwidth").get(0).path("bytes").asLong());
        assertEquals("write-bw", doc.path("test").asText());
        assertFalse(w.toString().contains("{"), "stdout keeps the text only");
    }

    private static PeerInfo peer() {
        return new PeerInfo(0, 1, 0x12, 0x5a8577, 0x56f, 0x56475680b000L, new byte[16], 0);
    }
}
