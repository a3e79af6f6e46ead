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
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JrdmaCliTest {
    @Test
    void helpListsEveryCommand() {
        Result r = run("--help");
        assertEquals(0, r.code());
        for (String c : List.of("send-lat", "send-bw", "write-lat", "write-bw", "read-lat", "read-bw", "atomic-lat",
                "atomic-bw", "devices", "devinfo", "generate-completion")) {
            assertTrue(r.out().contains(c), c + " missing from:\n" + r.out());
        }
    }

    @Test
    void version() {
        Result r = run("--version");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith("jrdma "), r.out());
        assertTrue(r.out().contains("perftest out-of-band protocol 6.06"), r.out());
        assertTrue(r.out().contains("\nJava " + Runtime.version() + " ("), r.out());
        assertTrue(r.out().contains("\nbindings generated from rdma-core 44.0 (libibverbs-dev 44.0-"), r.out());
        // The host has libibverbs1 (scripts/setup): the mapped file, symlinks resolved.
        assertTrue(r.out().matches("(?s).*\nlibibverbs loaded: /\\S+/libibverbs\\.so\\.1\\.\\S+\n.*"), r.out());
        assertEquals(0, run("write-bw", "--version").code());
    }

    /** The help text with line wrapping undone. */
    private static String help(String command) {
        Result r = run(command, "--help");
        assertEquals(0, r.code());
        return r.out().replaceAll("\\s+", " ");
    }

    @Test
    void helpShowsEachTestsOwnDefaults() {
        String sendLat = help("send-lat");
        assertTrue(sendLat.contains("Message size, K and M suffixes allowed (default: 2)"), sendLat);
        assertTrue(sendLat.contains("(default: 1000)"), sendLat);
        assertTrue(sendLat.contains("--rx-depth"), sendLat);
        assertFalse(sendLat.contains("--cq-mod"), sendLat);
        String writeBw = help("write-bw");
        assertTrue(writeBw.contains("(default: 65536)"), writeBw);
        assertTrue(writeBw.contains("at least 5 (default: 5000)"), writeBw);
        assertTrue(writeBw.contains("Send queue depth (default: 128)"), writeBw);
        assertFalse(writeBw.contains("--rx-depth"), writeBw);
        String atomic = help("atomic-lat");
        assertTrue(atomic.contains("CMP_AND_SWAP, FETCH_AND_ADD (default: FETCH_AND_ADD)"), atomic);
        assertTrue(atomic.contains("(default: 8)"), atomic);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "send-lat -s 0 | option '--size' (-s): must be between 1 and 2147483647, got 0",
        "send-lat -n 3 | option '--iters' (-n): must be between 5 and 100000000, got 3",
        "send-lat -c XX | --connection",
        "write-lat -c UD | option '--connection' (-c): UD is not available for write-lat (choose RC, UC)",
        "read-bw -c UC | option '--connection' (-c): UC is not available for read-bw (choose RC)",
        "send-lat --output bogus | --output",
        "send-lat --output bandwidth | option '--output': bandwidth is not available for send-lat (choose latency)",
        "write-bw -s 12Q | '12Q' is not a size",
        "send-lat -m 1000 | option '--mtu' (-m): must be 256, 512, 1024, 2048 or 4096, got 1000",
        "atomic-bw -s 16 | atomic operations are 8 bytes",
        "send-lat --json --csv | exclude each other",
        "send-lat -a -D 5 | exclude each other",
        "send-lat -D 5 -e | options '--duration' (-D) and '--events' (-e) exclude each other",
        "read-bw -e -D 2 host | options '--duration' (-D) and '--events' (-e) exclude each other",
        "send-lat -R -c UC | option '--rdma_cm' (-R): UC is not supported by rdma_cm (use RC or UD)",
        "send-lat --plot lat.pdf | option '--plot': FILE must end in .png or .svg, got 'lat.pdf'",
        "write-bw --plot bw.png | option '--plot': a BW test draws BW and message rate vs size, which needs --all (-a)",
        "send-lat -b | Unknown option: '-b'",
        "read-lat -D 0 | option '--duration' (-D): must be between 1 and 86400, got 0",
        "send-lat --warm-up -1 | option '--warm-up': must be between 0 and 100000000, got -1",
        "write-bw --warm-up lots | --warm-up",
        "send-lat --pin-cpu 1024 | option '--pin-cpu': must be between 0 and 1023, got 1024",
        "read-lat --pin-cpu -1 | option '--pin-cpu': must be between 0 and 1023, got -1",
        "write-bw --histogram h.txt | only latency tests",
        "send-lat -q 2 | Unknown option: '-q'",
        "write-lat -r 4 | Unknown option: '-r'",
        "send-lat host1 host2 | Unmatched argument",
        "devinfo -i 0 | option '--ib-port' (-i): must be >= 1, got 0",
        "bogus | Unmatched argument",
    })
    void usageErrorsAreOneLineNamingTheOptionWithExitCode2(String line, String expected) {
        Result r = usageError(expected.trim(), line.trim().split(" "));
        assertTrue(r.err().startsWith("jrdma"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void warmUpTwinsRunTheSameTestShortAndQuiet() {
        PerftestSettings s = settings("send-bw", "-c", "UD", "-q", "2", "-e", "-S", "3", "--json", "-R", "-n", "500",
                "-N", "--warm-up", "400", "10.200.0.1");
        PerftestSettings client = s.forWarmUp(true, 64, 20);
        PerftestSettings server = s.forWarmUp(false, 64, 20);
        assertTrue(client.client());
        assertFalse(server.client());
        for (PerftestSettings t : List.of(client, server)) {
            assertEquals(s.kind(), t.kind());
            assertEquals(s.connection(), t.connection());
            assertEquals(2, t.qps());
            assertTrue(t.events());
            assertEquals(3, t.sl());
            assertTrue(t.noPeak(), "the same peak branch as the measurement");
            assertEquals(List.of(64L), t.sizes());
            assertEquals(20, t.iters());
            assertEquals(10, t.txDepth(), "tx depth 128 < 500 iterations: the send queue fills up in the warm-up too");
            assertEquals(20, t.rxDepth(), "UD: a receive for every message, as in the measurement");
            assertEquals(10, t.cqMod());
            assertFalse(t.rdmaCm(), "the loopback pair connects directly");
            assertFalse(t.json());
            assertNull(t.output());
            assertEquals(0, t.durationSeconds());
            assertEquals(0, t.warmUpIters(), "no warm-up of the warm-up");
            assertEquals(5, t.timeout().toSeconds(), "a loopback wait of 5 s means a lost message");
        }
        PerftestSettings rc = settings("send-lat", "-n", "20000", "host").forWarmUp(true, 2, 20);
        assertEquals(20, rc.rxDepth(), "a receive for every message of a run: no re-post during it");
        assertEquals(1, rc.txDepth());
        assertEquals(1, rc.cqMod());
        assertEquals(20, settings("write-bw", "-n", "20", "host").forWarmUp(true, 2, 20).txDepth(),
                "tx depth clamped to -n: the send queue never fills in the measurement, nor here");
        assertEquals(2, settings("send-lat", "--timeout", "2", "host").forWarmUp(true, 2, 20).timeout()
                .toSeconds());
    }

    /** A typo keeps picocli's suggestion, in the one line of the usage error. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "send-lta | jrdma: Unmatched argument at index 0: 'send-lta'. Did you mean: jrdma send-lat or jrdma send-bw or"
            + " jrdma read-lat? (see 'jrdma --help')",
        "send-lat --sizee 8 | jrdma send-lat: Unknown option: '--sizee'. Did you mean: --size? (see 'jrdma send-lat"
            + " --help')",
    })
    void typosGetPicocliSuggestions(String line, String expected) {
        Result r = run(line.strip().split(" "));
        assertEquals(2, r.code(), r.err());
        assertEquals(expected.strip() + "\n", r.err());
    }

    @Test
    void noCommandIsAUsageError() {
        Result r = run();
        assertEquals(2, r.code());
        assertTrue(r.err().contains("missing command"), r.err());
    }

    @ParameterizedTest
    @CsvSource({"send-lat", "send-bw", "write-lat", "write-bw", "read-lat", "read-bw", "atomic-lat", "atomic-bw",
        "devinfo", "devices"})
    void deviceCommandsWithoutADeviceSayHowToGetOne(String command) {
        Assumptions.assumeTrue(dev.jrdma.Rdma.devices().isEmpty(), "this host has RDMA devices");
        Result r = run(command);
        assertEquals(1, r.code(), r.err());
        assertEquals("", r.out(), "no header without devices");
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("jrdma " + command + ": no RDMA devices found (without RDMA hardware, Soft-RoCE"),
                r.err());
        for (String hint : new String[] {"rdma link add rxe0 type rxe netdev <interface>", "rdma_rxe", "ib_uverbs",
            "troubleshooting.md"}) {
            assertTrue(r.err().contains(hint), hint + " missing from " + r.err());
        }
    }

    /** -R is implemented for RC with one QP; what perftest also allows exits 1 naming the combination. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "send-lat -R -c UD | jrdma send-lat: -R (rdma_cm) with -c UD is not implemented yet in jrdma's device part",
        "write-bw -R -q 2 host | jrdma write-bw: -R (rdma_cm) with -q above 1 is not implemented yet in jrdma's device part",
    })
    void rdmaCmCombinationsNotImplementedExitWith1(String line, String expected) {
        Result r = run(line.trim().split(" "));
        assertEquals(1, r.code(), r.err());
        assertEquals(expected.strip() + "\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void anUnknownDeviceListsTheAvailableOnes() {
        Result r = run("send-lat", "-d", "nosuch0");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().startsWith("jrdma send-lat: no RDMA device 'nosuch0' (available: "), r.err());
    }

    @Test
    void settingsApplyPerftestDefaultsAndDependencies() {
        PerftestSettings s = settings("send-lat");
        assertEquals(TestKind.SEND_LAT, s.kind());
        assertEquals(List.of(2L), s.sizes());
        assertEquals(1000, s.iters());
        assertEquals(1, s.txDepth());
        assertEquals(512, s.rxDepth());
        assertEquals(18515, s.port());
        assertEquals(-1, s.gidIndex());
        assertEquals(-1, s.inlineSize());
        assertEquals(TestKind.Connection.RC, s.connection());
        assertFalse(s.client());
        assertEquals(60, s.timeout().toSeconds());

        s = settings("send-lat", "-n", "100", "-x", "1", "-s", "1K", "10.200.0.1");
        assertEquals("10.200.0.1", s.host());
        assertEquals(100, s.rxDepth(), "rx depth clamped to -n");
        assertEquals(List.of(1024L), s.sizes());
        assertEquals(1, s.gidIndex());

        assertEquals(1000, settings("send-bw", "-c", "UD").rxDepth(), "UD: rx depth = -n (no RNR retry)");
        assertEquals(16_000, settings("send-lat", "-c", "UC", "-n", "100000").rxDepth(), "UC: up to UC_MAX_RX");
        assertEquals(300, settings("send-bw", "-c", "UC", "-n", "300").rxDepth());
        assertEquals(600, settings("send-bw", "-c", "UD", "-r", "600").rxDepth(), "an explicit depth stays");
        assertEquals(512, settings("send-bw", "-c", "UD", "-D", "5").rxDepth(), "not for duration runs");

        s = settings("write-bw", "-n", "20", "-a", "host");
        assertEquals(20, s.txDepth(), "tx depth clamped to -n");
        assertEquals(20, s.cqMod(), "cq_mod clamped to tx depth");
        assertEquals(23, s.sizes().size());
        assertEquals(8_388_608L, s.sizes().get(22));
        assertFalse(s.noPeak());

        s = settings("read-bw", "-n", "200", "host");
        assertEquals(1, s.cqMod(), "no CQ moderation for 64 KiB messages unless asked for");
        s = settings("read-bw", "-n", "200", "-Q", "10", "host");
        assertEquals(10, s.cqMod());

        assertTrue(settings("send-bw").noPeak(), "send_bw server never computes a peak");
        assertFalse(settings("send-bw", "host").noPeak());
        assertTrue(settings("write-bw", "-n", "20001", "host").noPeak(), "> 20000 iterations: no peak");
        assertTrue(settings("write-bw", "-D", "5", "host").noPeak());
        assertEquals(5000, settings("write-bw").iters());
        assertEquals(TestKind.AtomicType.FETCH_AND_ADD, settings("atomic-lat").atomicType());
        assertEquals(10_000, settings("send-lat").warmUpIters());
        assertEquals(0, settings("send-lat", "--warm-up", "0").warmUpIters());
        assertEquals(List.of(), settings("send-lat").pinCpus(), "not bound unless asked");
        assertEquals(List.of(1), settings("send-lat", "--pin-cpu", "1").pinCpus());
        assertEquals(List.of(), settings("send-lat", "--pin-cpu", "1", "host").forWarmUp(true, 2, 20).pinCpus(),
                "the twins' threads stay free");
        assertEquals(List.of(8L), settings("atomic-bw", "-a").sizes());
        assertEquals(64 * 1024 * 1024L, settings("write-bw", "-s", "64M").sizes().get(0));
        assertEquals(220, TestKind.WRITE_LAT.defaultInline(TestKind.Connection.RC));
        assertEquals(236, settings("send-lat", "-I", "236").inlineSize());
    }

    @Test
    void bidirectionalDurationRdmaCmAndUd() {
        PerftestSettings s = settings("send-bw", "-b", "-D", "5", "host");
        assertTrue(s.bidirectional());
        assertEquals(5, s.durationSeconds());
        assertTrue(s.noPeak(), "duration runs never compute a peak");
        assertEquals(new PerftestSchedule.Options(true, true, false), PerftestSchedule.Options.of(s));
        assertFalse(settings("send-bw", "-b").noPeak(), "a bidirectional send_bw server computes its peak");
        assertEquals(new PerftestSchedule.Options(false, false, true),
                PerftestSchedule.Options.of(settings("write-lat", "-R", "host")));
        assertEquals(128, settings("write-bw", "-D", "3", "host").txDepth(), "no clamping to -n in duration runs");

        // UD: the sizes follow the agreed MTU (perftest's check_mtu).
        assertEquals(List.of(1024L), settings("send-bw", "-c", "UD", "host").sizesForMtu(1024), "default 64 KiB lowered");
        assertEquals(10, settings("send-lat", "-c", "UD", "-a").sizesForMtu(1024).size());
        assertEquals(List.of(512L), settings("send-lat", "-c", "UD", "-s", "512").sizesForMtu(1024));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> settings("send-bw", "-c", "UD", "-s", "2048", "host").sizesForMtu(1024));
        assertTrue(e.getMessage().startsWith("option '--size' (-s)"), e.getMessage());
        assertEquals(List.of(65536L), settings("send-bw", "host").sizesForMtu(1024), "RC is not limited by the MTU");
    }

    @Test
    void progressLineOnlyForDurationRunsOnATerminal() {
        java.io.StringWriter err = new java.io.StringWriter();
        java.io.PrintWriter pw = new java.io.PrintWriter(err);
        var duration = settings("send-bw", "-D", "10", "host");
        assertTrue(dev.jrdma.tools.perftest.ProgressLine.forRun(duration, pw, true).active());
        var quiet = dev.jrdma.tools.perftest.ProgressLine.forRun(duration, pw, false);
        assertFalse(quiet.active());
        assertFalse(quiet.update(0, 1_000_000_000L, 5));
        quiet.finish();
        assertFalse(dev.jrdma.tools.perftest.ProgressLine.forRun(settings("send-bw", "host"), pw, true).active());
        var shown = dev.jrdma.tools.perftest.ProgressLine.forRun(duration, pw, true);
        assertTrue(shown.update(0, 2_000_000_000L, 5));
        pw.flush();
        assertEquals("\rsend-bw: 2.0/10 s, 5 iterations", err.toString());
    }

    @Test
    void plotAndHistogramFilesAreAccepted() {
        assertEquals(java.nio.file.Path.of("lat.svg"), settings("send-lat", "--plot", "lat.svg").plot());
        assertEquals(java.nio.file.Path.of("bw.png"), settings("write-bw", "-a", "--plot", "bw.png", "host").plot());
        assertEquals(java.nio.file.Path.of("h.hgrm"), settings("read-lat", "--histogram", "h.hgrm").histogram());
    }

    @Test
    void parametersForTheMachineReadableOutputs() {
        java.util.Map<String, Object> p = settings("write-bw", "-a", "-q", "2", "host").toParameters();
        assertEquals("write-bw", p.get("test"));
        assertEquals("ib_write_bw", p.get("perftest_equivalent"));
        assertEquals("client", p.get("role"));
        assertEquals(true, p.get("all_sizes"));
        assertEquals(null, p.get("size"));
        assertEquals(5000L, p.get("iterations"));
        assertEquals(2, p.get("qps"));
        assertEquals("RC", p.get("connection"));
        assertEquals(List.of("test", "perftest_equivalent", "role", "host"), List.copyOf(p.keySet()).subList(0, 4));
    }
}
