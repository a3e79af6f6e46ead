// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The report options' formats: -U/-H sample lists in C's %g, -C's clock, -W's counters. */
class ReportFormatsTest {
    @ParameterizedTest
    @CsvSource({
        "1.5, 1.5", "2.0, 2", "0, 0", "123456.7, 123457", "1234567.0, 1.23457e+06", "0.0001, 0.0001",
        "0.00001234, 1.234e-05", "3.14159265, 3.14159", "100, 100", "1e21, 1e+21", "999999.5, 1e+06",
        "-2.5, -2.5",
    })
    void gIsCsPercentG(double v, String expected) {
        assertEquals(expected, SampleList.g(v));
    }

    @Test
    void unsortedListsEveryIntervalInOrder() {
        long[] posts = {0, 4_000, 6_000, 16_000, 17_000};   // ns
        assertEquals("#, usec\n1, 2\n2, 1\n3, 5\n4, 0.5\n", SampleList.unsorted(posts, true, 1, false),
                "n-1 intervals, halved for a round trip");
        assertEquals("#, usec\n1, 4\n2, 2\n3, 10\n4, 1\n", SampleList.unsorted(posts, false, 1, false));
        assertEquals("#, cycles\n1, 6000\n2, 3000\n3, 15000\n4, 1500\n", SampleList.unsorted(posts, true, 3000, true),
                "-C: microseconds x MHz");
    }

    @Test
    void histogramListsTheKeptSamplesSorted() {
        long[] posts = {0, 1_000, 3_000, 6_000, 10_000, 15_000, 21_000};   // deltas 1..6 us
        LatencyReport r = LatencyReport.fromPostTimes(2, posts, false);
        assertEquals("#, usec\n1, 1\n2, 2\n3, 3\n4, 4\n", SampleList.sorted(r, 1, false), "the two largest left out");
    }

    @Test
    void cpuClockIsCpuinfosFirstMhz() throws IOException {
        assertEquals(2599.998, CpuClock.mhz(List.of("processor\t: 0", "model name\t: x", "cpu MHz\t\t: 2599.998",
                "cpu MHz\t\t: 1200.000")));
        IOException e = assertThrows(IOException.class, () -> CpuClock.mhz(List.of("processor : 0", "BogoMIPS : 50")));
        assertTrue(e.getMessage().startsWith("-C (--report-cycles): /proc/cpuinfo has no 'cpu MHz'"), e.getMessage());
    }

    @Test
    void countersPrintTheirChangeSinceTheLastRead(@TempDir Path root) throws IOException {
        Path port = Files.createDirectories(root.resolve("rxe0/ports/1/hw_counters"));
        Files.writeString(port.resolve("sent_pkts"), "100\n");
        Files.writeString(port.resolve("rcvd_pkts"), "7\n");
        PortCounters c = PortCounters.open(root, "rxe0", 1, List.of("hw_counters/sent_pkts", "hw_counters/rcvd_pkts"));
        Files.writeString(port.resolve("sent_pkts"), "150\n");
        assertEquals("\thw_counters/sent_pkts=50\n\thw_counters/rcvd_pkts=0\n\n", c.print());
        Files.writeString(port.resolve("rcvd_pkts"), "10\n");
        assertEquals("\thw_counters/sent_pkts=0\n\thw_counters/rcvd_pkts=3\n\n", c.print());
        IOException e = assertThrows(IOException.class, () -> PortCounters.open(root, "rxe0", 1, List.of("nope")));
        assertTrue(e.getMessage().startsWith("-W (--report-counters): cannot read counter "), e.getMessage());
    }
}
