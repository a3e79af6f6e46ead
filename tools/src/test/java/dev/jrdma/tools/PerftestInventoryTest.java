// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * perftest-options.tsv reads as the facts it records; that its 6.06 column is the installed
 * perftest's usage text is PerftestUsageDeviceTest's to show.
 */
class PerftestInventoryTest {
    @Test
    void countsMatchPerftestsUsage() {
        List<PerftestInventory.Option> options = PerftestInventory.options();
        // usage() of perftest 26.04 lists 129 options for the eight tests; 6.06's --help 86; two
        // of 6.06's (--inline_recv, --source_ip) are gone from 26.04.
        assertEquals(129, options.stream().filter(o -> !o.in2604().isEmpty()).count());
        assertEquals(86, options.stream().filter(o -> !o.in606().isEmpty()).count());
        assertEquals(131, options.size());
        assertEquals(options.size(), options.stream().map(PerftestInventory.Option::longName).distinct().count(),
                "one line per option");
    }

    @Test
    void recordsPerTestFactsAndSpellings() {
        PerftestInventory.Option events = find("--events");
        assertEquals("-e", events.shortName());
        assertEquals(Set.of("send_lat", "send_bw", "read_lat", "read_bw", "atomic_lat", "atomic_bw"), events.tests());
        PerftestInventory.Option gid = find("--gid-index");
        assertTrue(gid.takesValue());
        assertEquals(Set.copyOf(PerftestInventory.TESTS), gid.in606());
        assertEquals("--report-histogrm", find("--report-histogram").getoptName());
        assertEquals("--com_rdma_cm", find("--comm_rdma_cm").longName606());
        assertEquals(Set.of(), find("--use_cuda").in606());
    }

    @Test
    void malformedLinesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PerftestInventory.parse(List.of("# comment", "-x\t--gid-index\targ\t*")));
        assertTrue(e.getMessage().contains("line 2: malformed"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> PerftestInventory.parse(List.of("-\t--x\t-\tsend_lat,ping\t*")));
        assertTrue(e.getMessage().contains("unknown test in send_lat,ping"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> PerftestInventory.parse(List.of("-\t--x\t-\t*\t*\tcolour=red")));
        assertTrue(e.getMessage().contains("unknown note colour=red"), e.getMessage());
    }

    private static PerftestInventory.Option find(String longName) {
        return PerftestInventory.options().stream().filter(o -> o.longName().equals(longName)).findFirst().orElseThrow();
    }
}
