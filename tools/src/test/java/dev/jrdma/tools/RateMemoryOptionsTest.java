// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.settings;
import static dev.jrdma.tools.CommandLines.usageError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.MemorySettings;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.PerftestSchedule;
import dev.jrdma.tools.perftest.PerftestSchedule.Step;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.RateSettings.Type;
import dev.jrdma.tools.perftest.RateSettings.Units;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The rate limiter, memory and other-verbs options: perftest's names, per-test availability and rules. */
class RateMemoryOptionsTest {
    @Test
    void noOptionsMeanTheDefaults() {
        PerftestSettings s = settings("write-bw", "host");
        assertSame(RateSettings.DEFAULT, s.rate());
        assertSame(OperationSettings.DEFAULT, s.operations());
        assertEquals(-1, s.memory().numaNode());
        assertFalse(s.memory().hugepages() || s.memory().onDemand() || s.memory().nullMr());
        assertNull(s.memory().mmapFile());
    }

    @Test
    void disableNumaTurnsNumaNodesBindingOffAsPerftest() {
        assertEquals(0, settings("send-bw", "--numa_node", "0", "host").memory().numaNode());
        assertEquals(-1, settings("send-bw", "--numa_node", "0", "--disable_numa", "host").memory().numaNode());
        assertEquals(-1, settings("atomic-lat", "--disable_numa").memory().numaNode(), "alone: nothing to turn off");
        // the node is still checked
        usageError("NUMA node 4095 does not exist", "write-lat", "--disable_numa", "--numa_node", "4095");
    }

    @Test
    void aBareRateLimitAsksTheDeviceInGbps() {
        RateSettings r = settings("write-bw", "--rate_limit", "2.5", "host").rate();
        assertEquals(Type.HW, r.type(), "perftest: HW when no type is given");
        assertFalse(r.typeGiven(), "so a refusal falls back to SW");
        assertEquals(Units.GBPS, r.units());
        assertEquals(2.5, r.limit());
        assertEquals(2_500_000, r.hardwareLimit().kilobitsPerSecond());
    }

    @Test
    void softwareLimitWithUnitsAndBurst() {
        RateSettings r = settings("send-bw", "--rate_limit=1000", "--rate_units=p", "--rate_limit_type=SW",
                "--burst_size=10", "host").rate();
        assertEquals(Type.SW, r.type());
        assertTrue(r.typeGiven());
        assertEquals(Units.PPS, r.units());
        assertEquals(10, r.burstSize());
        // 1000 messages/s in bursts of 10: a burst every 10 ms
        assertEquals(10_000_000, r.burstGapNanos(64, 10));
    }

    @Test
    void packetPacingTakesMibpsBurstAndTypicalSize() {
        RateSettings r = settings("read-bw", "--rate_limit", "10", "--rate_units", "M", "--rate_limit_type", "PP",
                "--burst_size", "4096", "--typical_pkt_size", "1024", "host").rate();
        assertEquals(Type.PP, r.type());
        // perftest: rate_limit * 8 * 1024 kb/s
        assertEquals(81_920, r.hardwareLimit().kilobitsPerSecond());
        assertEquals(4096, r.hardwareLimit().maxBurstBytes());
        assertEquals(1024, r.hardwareLimit().typicalPacketSize());
    }

    @Test
    void memoryOptions(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("buf"));
        Path payload = Files.writeString(dir.resolve("p.txt"), "0x11223344,0xaabbccdd\n");
        MemorySettings m = settings("send-bw", "--mmap", file.toString(), "--mmap-offset", "8192", "--odp",
                "--payload_file_path", payload.toString(), "-s", "6", "host").memory();
        assertEquals(file, m.mmapFile());
        assertEquals(8192, m.mmapOffset());
        assertTrue(m.onDemand());
        assertArrayEquals(new byte[] {0x44, 0x33, 0x22, 0x11, (byte) 0xdd, (byte) 0xcc}, m.payload(),
                "little-endian words, cut at -s");
        assertTrue(settings("read-lat", "--use-null-mr").memory().nullMr());
        assertTrue(settings("atomic-lat", "--use_hugepages").memory().hugepages());
    }

    @Test
    void operations() {
        assertTrue(settings("send-lat", "--send_with_imm").operations().sendWithImmediate());
        PerftestSettings w = settings("write-bw", "--write_with_imm", "-n", "100", "host");
        assertTrue(w.operations().writeWithImmediate());
        assertEquals(100, w.rxDepth(), "receives as for a send test: 512 clamped to -n");
        assertEquals(1, settings("write-bw", "host").rxDepth());
        assertEquals(512, settings("write-lat", "--write_with_imm", "-D", "2").rxDepth());
        assertTrue(settings("read-bw", "--data_validation", "host").operations().dataValidation());
        assertTrue(settings("write-bw", "--data_validation", "--data_validation_debug", "host").operations()
                .dataValidationDebug());
        assertFalse(settings("write-bw", "--data_validation_debug", "host").operations().dataValidationDebug(),
                "alone it does nothing, as perftest");
        assertTrue(settings("atomic-bw", "-e", "host").events(), "perftest offers -e on the atomic tests");
        assertTrue(settings("atomic-lat", "--events").events());
    }

    @Test
    void warmUpRunsUnpacedOnOrdinaryPages(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("buf"));
        PerftestSettings s = settings("write-bw", "--rate_limit", "1", "--rate_limit_type", "SW", "--mmap",
                file.toString(), "--odp", "host").forWarmUp(true, 2, 20);
        assertSame(RateSettings.DEFAULT, s.rate());
        assertNull(s.memory().mmapFile());
        assertTrue(s.memory().onDemand(), "the device is asked in the warm-up already");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "write-bw --rate_limit 0 | option '--rate_limit': must be a positive number, got '0'",
        "write-bw --rate_limit fast | option '--rate_limit': must be a positive number, got 'fast'",
        "write-bw --rate_limit 1 --rate_units G | option '--rate_units': must be M, g or p, got 'G'",
        "write-bw --rate_limit 1 --rate_limit_type XX | option '--rate_limit_type': must be SW, HW or PP, got 'XX'",
        "write-bw --rate_limit_type SW | option '--rate_limit_type': needs --rate_limit",
        "write-bw --burst_size 8 | option '--burst_size': needs a rate limiter (--rate_limit)",
        "write-bw --rate_limit 1 --burst_size -1 | option '--burst_size': must not be negative, got -1",
        "write-bw --rate_limit 1 --typical_pkt_size 100 | option '--typical_pkt_size': only the PP rate limiter takes it",
        "write-bw --rate_limit 1 --rate_limit_type PP --typical_pkt_size 70000 | must be between 0 and 65535, got 70000",
        "write-bw --rate_limit 10 --rate_units p | option '--rate_units': p (messages per second) is not available with a HW",
        "write-bw --rate_limit 1 | option '--rate_limit': a HW rate limit must be a static rate in Gb/s (2.5, 5, 10,",
        "send-bw --rate_limit 10.0 --rate_limit_type HW | a static rate in Gb/s (2.5, 5, 10, 14, 20, 25, 28, 30, 40, 50, 56, 60, 80, 100, 112, 120, 168, 200, 300, 400, 600), got '10.0'",
        "write-bw --rate_limit 1 --rate_limit_type PP | option '--rate_units': packet pacing (PP) takes M (MiB/s) only",
        "atomic-bw --rate_limit 1 --rate_limit_type SW | SW cannot pace atomic tests",
        "send-bw -b --rate_limit 1 --rate_limit_type SW | SW cannot pace bidirectional send tests",
        "write-lat --rate_limit 1 | Unknown option: '--rate_limit'",
        "send-lat --burst_size 1 | Unknown option: '--burst_size'",
        "write-lat --payload_file_path p.txt | Unknown option: '--payload_file_path'",
        "send-bw --use-null-mr | Unknown option: '--use-null-mr'",
        "write-bw --send_with_imm | Unknown option: '--send_with_imm'",
        "send-bw --write_with_imm | Unknown option: '--write_with_imm'",
        "read-lat --write_with_imm | Unknown option: '--write_with_imm'",
        "write-lat --data_validation | Unknown option: '--data_validation'",
        "write-bw --data_validation -c UC | option '--data_validation': needs RC (-c RC)",
        "read-bw --data_validation -a | option '--data_validation': excludes -a (one size only)",
        "write-bw --data_validation -t 16 | option '--data_validation': needs -t 32 or more, got 16",
        "read-bw --data_validation --use-null-mr | option '--data_validation': excludes --use-null-mr",
        "write-bw --data_validation --write_with_imm | option '--data_validation': excludes --write_with_imm",
        "send-bw --data_validation | option '--data_validation': perftest 26.04 validates RDMA write and read only",
        "send-bw --data_validation_debug | option '--data_validation_debug': perftest 26.04 validates RDMA write",
        "atomic-bw --data_validation | option '--data_validation': an atomic moves 8 bytes",
        "atomic-bw --data_validation_debug | option '--data_validation_debug': an atomic moves 8 bytes",
        "send-lat --mmap-offset 4096 | option '--mmap-offset': needs --mmap",
        "send-lat --mmap /nonexistent/jrdma-buffer | option '--mmap': no file '/nonexistent/jrdma-buffer'",
        "send-lat --mmap /dev/null --mmap-offset 100 | option '--mmap-offset': must be a non-negative multiple of the page size",
        "send-lat --mmap /dev/null --use_hugepages | options '--mmap' and '--use_hugepages' exclude each other",
        "send-lat --numa_node -1 | option '--numa_node': must not be negative, got -1",
        "send-lat --numa_node 4095 | option '--numa_node': NUMA node 4095 does not exist",
        "send-lat --numa_node 0 --pin-cpu 0 | options '--numa_node' and '--pin-cpu' exclude each other",
        "send-lat --payload_file_path /nonexistent/p.txt | option '--payload_file_path': cannot read",
    })
    void usageErrorsNameTheOption(String line, String expected) {
        usageError(expected.trim(), line.trim().split(" "));
    }

    /**
     * --write_with_imm changes write_bw's and write_lat's schedules as perftest 6.2x's: receives
     * posted and a sync before each run, both write_bw sides run (between two syncs) and no report
     * is exchanged one way; write_lat's server posts first.
     */
    @Test
    void writeWithImmediateSchedules() {
        PerftestSchedule.Options imm = new PerftestSchedule.Options(false, false, false, true);
        for (boolean client : new boolean[] {true, false}) {
            assertEquals(List.of(Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC, Step.SYNC, Step.RUN, Step.SYNC, Step.FINISH),
                    PerftestSchedule.of(TestKind.WRITE_BW, client, 1, imm));
            assertEquals(List.of(Step.SYNC, Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC, Step.SYNC, Step.RUN, Step.CLOSE),
                    PerftestSchedule.of(TestKind.WRITE_LAT, client, 1, imm));
        }
        assertEquals(List.of(Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC, Step.SYNC, Step.RUN, Step.SYNC, Step.REPORT,
                        Step.FINISH),
                PerftestSchedule.of(TestKind.WRITE_BW, true, 1, new PerftestSchedule.Options(true, false, false, true)));
        assertEquals(imm, PerftestSchedule.Options.of(settings("write-bw", "--write_with_imm", "host")));
    }

    @Test
    void aMalformedPayloadNamesTheWord(@TempDir Path dir) throws IOException {
        Path payload = Files.writeString(dir.resolve("p.txt"), "0x11223344,0xzz\n");
        usageError("word 1 ('0xzz') is not 0x and 8 hex digits", "send-bw", "--payload_file_path", payload.toString());
    }
}
