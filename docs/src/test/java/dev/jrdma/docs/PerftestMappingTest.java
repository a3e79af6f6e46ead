// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every option perftest's usage text lists for the eight tests is accounted for in jrdma, and
 * the options table of docs/guide/perftest-mapping.md is what {@link PerftestMapping} generates
 * from perftest's option inventory and jrdma's command line; with {@code -Djrdma.docs.write=true}
 * ({@code scripts/docs-sync}) the table is rewritten instead. The pending count is printed.
 */
class PerftestMappingTest {
    private static final Path PAGE = Guide.DIR.resolve(PerftestMapping.PAGE);

    @Test
    void everyPerftestOptionIsImplementedRefusedOrPending() {
        PerftestMapping mapping = PerftestMapping.current();
        long pending = mapping.rows().stream().filter(r -> !r.pendingOn().isEmpty()).count();
        System.out.println("perftest-mapping: " + mapping.rows().size() + " perftest options, " + pending
                + " not implemented yet: " + mapping.rows().stream().filter(r -> !r.pendingOn().isEmpty())
                .map(r -> r.option().longName()).toList());
        List<String> problems = mapping.problems();
        assertTrue(problems.isEmpty(), problems.size() + " perftest options unaccounted for:\n  "
                + String.join("\n  ", problems));
    }

    @Test
    void committedPageIsTheGeneratedOne() throws IOException {
        String committed = Files.readString(PAGE);
        String generated = PerftestMapping.replaceIn(committed, PerftestMapping.current().generate());
        Guide.checkGenerated(PAGE, generated,
                "'s options table differs from perftest's inventory and jrdma's command line");
    }

    @Test
    void theRowsTheOldPageHadWrongAreRight() {
        PerftestMapping mapping = PerftestMapping.current();
        PerftestMapping.Row events = mapping.rows().stream().filter(r -> r.option().longName().equals("--events"))
                .findFirst().orElseThrow();
        // perftest offers -e on the atomic tests too (6.06 and 26.04), not only send and read.
        assertTrue(events.option().in606().containsAll(Set.of("atomic_lat", "atomic_bw")), events.toString());
        String page = mapping.generate();
        assertTrue(page.contains("| `-e`, `--events` |  | send-*, read-*, atomic-* |"), page);
        // -x: perftest takes 0-64 (MAX_GID_IX), and so does jrdma.
        assertTrue(page.contains("GID index, 0-64 as in perftest"), page);
    }

    @Test
    void compactTestNames() {
        assertEquals("*", PerftestMapping.tests(Set.copyOf(dev.jrdma.tools.PerftestInventory.TESTS)));
        assertEquals("*-bw", PerftestMapping.tests(Set.of("send_bw", "write_bw", "read_bw", "atomic_bw")));
        assertEquals("send-*, write-lat", PerftestMapping.tests(Set.of("send_bw", "write_lat", "send_lat")));
    }
}
