package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/lib/perf_table.py writes the generated block of docs/performance.md from the results
 * file of scripts/perf-compare (one line per run: "ROUND IMPL TEST SIZE METRIC VALUE"). The VM
 * run itself is too long for the tests; its table is checked here from a results file.
 */
class PerfTableTest {
    private static final Path SCRIPT = Guide.ROOT.resolve("scripts/lib/perf_table.py");
    private static final String HEADER = """
            # date 2026-11-23 18:10 UTC
            # cpus 2
            # clocksource tsc
            # perftest Version: 6.06
            # pinning none
            # aslr on
            # java openjdk version "25.0.3" 2026-04-21 LTS
            """;

    @TempDir
    Path dir;

    @Test
    void mediansRatiosAndTargets() throws Exception {
        String table = table(HEADER + """
                1 perftest read_lat 2 t_typical 24.0
                1 jrdma read_lat 2 t_typical 27.0
                2 perftest read_lat 2 t_typical 26.0
                2 jrdma read_lat 2 t_typical 25.0
                3 perftest read_lat 2 t_typical 25.0
                3 jrdma read_lat 2 t_typical 30.0
                1 perftest write_bw 65536 bw_avg 56.0
                1 jrdma write_bw 65536 bw_avg 53.0
                1 perftest write_bw 65536 msg_rate 0.0009
                1 jrdma write_bw 65536 msg_rate 0.00085
                """, "scripts/perf-compare --rounds 3");
        assertTrue(table.startsWith("Measured 2026-11-23 18:10 UTC with `scripts/perf-compare --rounds 3`"), table);
        // Medians 25 and 27: 1.08 misses <= 1.05. 53/56 = 0.946 misses >= 0.95 (not rounded up to a pass).
        assertTrue(table.contains("| read_lat | 2 | t_typical [us] | 25.00 | 27.00 | 1.08 | 3, 3 | <= 1.05 | **no** |"), table);
        assertTrue(table.contains("| write_bw | 65536 | BW average [MB/s] | 56.00 | 53.00 | 0.95 | 1, 1 | >= 0.95 | **no** |"),
                table);
        assertTrue(table.contains("read_lat 2 t_typical: C 24 26 25 / J 27 25 30;"), table);
        assertFalse(table.contains("Mixed pairs"), "no mixed table without --mixed runs:\n" + table);
    }

    @Test
    void mixedPairsGetTheirOwnTableAndFailuresAreListed() throws Exception {
        String table = table(HEADER + """
                1 perftest send_lat 64 t_typical 10.0
                1 jrdma send_lat 64 t_typical 13.0
                1 jrdma-client send_lat 64 t_typical 11.0
                1 jrdma-server send_lat 64 t_typical 12.0
                2 perftest send_lat 64 t_typical 10.0
                2 jrdma send_lat 64 t_typical 13.0
                2 jrdma-client send_lat 64 t_typical 11.5
                # retry round 2 jrdma-server send_lat 64 attempt 1: no valid report
                2 jrdma-server send_lat 64 FAILED
                """, "scripts/perf-compare --rounds 2 --mixed");
        // The main table stays perftest against jrdma on both sides.
        assertTrue(table.contains("| send_lat | 64 | t_typical [us] | 10.00 | 13.00 | 1.30 | 2, 2 | <= 1.05 | **no** |"), table);
        assertTrue(table.contains("| send_lat | 64 | t_typical [us] | 10.00 | 11.25 | 1.12 | 12.00 | 1.20 | 13.00 | 1.30 |"),
                table);
        assertTrue(table.contains("C server + J client 11 11.5 / J server + C client 12."), table);
        assertTrue(table.contains("Failed after 3 attempts: 2 jrdma-server send_lat 64."), table);
        assertTrue(table.contains("retry round 2 jrdma-server send_lat 64 attempt 1"), table);
    }

    private String table(String results, String invocation) throws IOException, InterruptedException {
        Path file = dir.resolve("results.txt");
        Files.writeString(file, results);
        Path out = dir.resolve("table.md");
        Process p = new ProcessBuilder("python3", SCRIPT.toString(), file.toString(), invocation, "clocksource=tsc")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("perf_table.py did not finish in 60 s");
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        return text;
    }
}
