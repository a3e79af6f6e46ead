// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.run;
import static dev.jrdma.tools.CommandLines.settings;
import static dev.jrdma.tools.CommandLines.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.CommandLines.Result;
import dev.jrdma.tools.perftest.PerftestSchedule;
import dev.jrdma.tools.perftest.PerftestSchedule.Step;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.ReportSettings;
import dev.jrdma.tools.perftest.RunSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The report and run-control options (#36): parsing, per-test availability, dependencies. */
class ReportRunOptionsTest {
    @Test
    void defaultsAreTheGroupsDefaults() {
        assertEquals(ReportSettings.DEFAULT, settings("send-lat").reports());
        assertEquals(RunSettings.DEFAULT, settings("write-bw", "host").run());
    }

    @Test
    void latencyReportOptions() {
        ReportSettings r = settings("send-lat", "-C", "-U", "-H").reports();
        assertTrue(r.cycles() && r.unsorted() && r.histogram() && r.listsSamples());
        r = settings("read-lat", "--report-cycles", "--report-unsorted", "--report-histogram").reports();
        assertTrue(r.cycles() && r.unsorted() && r.histogram());
        assertEquals(5, settings("atomic-lat", "--latency_gap", "5").run().latencyGapMicros());
    }

    @Test
    void reportOptionsOfEveryTest() {
        ReportSettings r = settings("write-bw", "-W", "hw_counters/sent_pkts,hw_counters/rcvd_pkts", "--cpu_util",
                "-D", "10", "-f", "3", "--out_json", "host").reports();
        assertEquals(List.of("hw_counters/sent_pkts", "hw_counters/rcvd_pkts"), r.counters());
        assertTrue(r.cpuUtil());
        assertEquals(3, r.margin());
        assertEquals(3, r.marginFor(10));
        assertEquals(2, ReportSettings.DEFAULT.marginFor(10), "perftest's default margin: a quarter of -D");
        assertEquals(Path.of("perftest_out.json"), r.outJsonFile(), "perftest's default file name");
        assertEquals(Path.of("/tmp/x.json"),
                settings("send-lat", "--out_json", "--out_json_file", "/tmp/x.json").reports().outJsonFile());
        assertNull(settings("send-lat", "--out_json_file", "/tmp/x.json").reports().outJsonFile(),
                "--out_json_file alone writes nothing, as in perftest");
        assertTrue(settings("send-bw", "-b", "--report-both", "host").reports().reportBoth());
    }

    @Test
    void runControlOfTheBandwidthTests() {
        RunSettings r = settings("write-bw", "-w", "100.5", "-y", "0.25", "--wait_destroy", "2", "--perform_warm_up",
                "--reversed", "host").run();
        assertEquals(100.5, r.limitBw());
        assertEquals(0.25, r.limitMsgRate());
        assertEquals(2, r.waitDestroySeconds());
        assertTrue(r.performWarmUp() && r.reversed() && r.verifies());
        assertEquals(1.0, settings("read-bw", "--limit_bw", "1", "--limit_msgrate", "2").run().limitBw());
    }

    @Test
    void runInfinitelyIsADurationRunOfThePeriod() {
        PerftestSettings s = settings("write-bw", "--run_infinitely", "host");
        assertTrue(s.run().runInfinitely());
        assertEquals(RunSettings.DEFAULT_PERIOD_SECONDS, s.durationSeconds(), "perftest's default -D of 5 s");
        assertTrue(s.noPeak(), "no peak in a soak, as perftest");
        assertEquals(2, settings("send-bw", "--run_infinitely", "-D", "2", "host").durationSeconds());
        assertEquals(128, settings("write-bw", "--run_infinitely", "-n", "20", "host").txDepth(),
                "a duration run: the tx depth is not clamped to -n");
    }

    @Test
    void reversedSwapsTheTestRolesNotTheExchange() {
        PerftestSettings client = settings("write-bw", "--reversed", "host");
        PerftestSettings server = settings("write-bw", "--reversed");
        assertTrue(client.client() && !client.testClient(), "the client with a host is perftest's SERVER");
        assertTrue(!server.client() && server.testClient());
        assertTrue(settings("send-bw", "--reversed", "host").noPeak(), "the receiving send_bw side has no peak");
        assertFalse(settings("send-bw", "--reversed").noPeak(), "the sending one has");
        // write_bw: the side without a host runs; the exchanges stay the same on both sides
        assertEquals(List.of(Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC, Step.SYNC, Step.REPORT, Step.FINISH),
                PerftestSchedule.of(TestKind.WRITE_BW, true, 1, PerftestSchedule.Options.of(client)));
        assertEquals(List.of(Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC, Step.RUN, Step.SYNC, Step.REPORT,
                Step.FINISH), PerftestSchedule.of(TestKind.WRITE_BW, false, 1, PerftestSchedule.Options.of(server)));
        assertEquals(List.of(false, false, false, false, true, false, false),
                PerftestSchedule.afterPeerRun(TestKind.WRITE_BW, true, 1, PerftestSchedule.Options.of(client)),
                "the reversed client waits for the server's run");
    }

    @Test
    void aBidirectionalSoakHasNoSyncAndNoReport() {
        PerftestSettings s = settings("read-bw", "-b", "--run_infinitely", "host");
        assertEquals(List.of(Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC, Step.RUN, Step.FINISH),
                PerftestSchedule.of(TestKind.READ_BW, true, 1, PerftestSchedule.Options.of(s)));
    }

    @Test
    void optionsExistOnlyWherePerftestOffersThem() {
        for (String lat : List.of("send-lat", "write-lat", "read-lat", "atomic-lat")) {
            for (String bwOnly : List.of("--run_infinitely", "--reversed", "--report-both", "--report-per-port")) {
                Result r = run(lat, bwOnly);
                assertEquals(2, r.code(), lat + " " + bwOnly);
                assertTrue(r.err().contains("Unknown option: '" + bwOnly + "'"), r.err());
            }
            assertEquals(2, run(lat, "-w", "1").code());
            assertEquals(2, run(lat, "--wait_destroy", "1").code());
        }
        for (String bw : List.of("send-bw", "write-bw", "read-bw", "atomic-bw")) {
            for (String latOnly : List.of("-C", "-U", "-H", "--latency_gap=1")) {
                assertEquals(2, run(bw, latOnly).code(), bw + " " + latOnly);
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "write-bw --run_infinitely -a|options '--run_infinitely' and '--all' (-a) exclude each other",
        "send-bw --run_infinitely -e|options '--run_infinitely' and '--events' (-e) exclude each other",
        "send-bw --run_infinitely -b|option '--run_infinitely': not with -b on send-bw (as in perftest)",
        "write-bw --reversed -R|options '--reversed' and '--rdma_cm' (-R) exclude each other",
        "write-bw -w -1|option '--limit_bw' (-w): must be 0 or more, got -1.0",
        "write-bw -y -2|option '--limit_msgrate' (-y): must be 0 or more, got -2.0",
        "write-bw --wait_destroy -1|option '--wait_destroy': must be between 0 and 86400, got -1",
        "send-lat --latency_gap -5|option '--latency_gap': must be 0 or more microseconds, got -5",
        "write-bw -D 4 -f 2|option '--margin' (-f): the duration (4 s) must exceed twice the margin, got 2",
        "send-lat -f 3|option '--margin' (-f): the duration (5 s) must exceed twice the margin, got 3",
        "write-bw -W ../../../etc/passwd|option '--report-counters' (-W): '../../../etc/passwd' is not a counter",
        "write-bw -D 4 --report-per-port|option '--report-per-port': perftest reports per port only with -D and -O",
    })
    void usageErrorsNameTheOption(String line, String expected) {
        usageError(expected, line.split(" "));
    }

    @Test
    void helpShowsPerftestsNames() {
        Result bw = run("write-bw", "--help");
        for (String name : List.of("--run_infinitely", "-w, --limit_bw", "-y, --limit_msgrate", "--wait_destroy",
                "--reversed", "--report-both", "--report-per-port", "-W, --report-counters", "--cpu_util",
                "-f, --margin", "--out_json", "--out_json_file", "--perform_warm_up")) {
            assertTrue(bw.out().contains(name), name + " missing:\n" + bw.out());
        }
        Result lat = run("send-lat", "--help");
        for (String name : List.of("-C, --report-cycles", "-U, --report-unsorted", "-H, --report-histogram",
                "--latency_gap")) {
            assertTrue(lat.out().contains(name), name + " missing:\n" + lat.out());
        }
    }
}
