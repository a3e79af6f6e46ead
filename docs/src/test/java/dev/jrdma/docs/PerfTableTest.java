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
        // Medians 25 and 27 (1.08); per round 1.125, 0.96, 1.2. Three rounds give no 90 % interval
        // of the median, so no verdict either way, however far the medians are from the target.
        assertTrue(table.contains("| read_lat | 2 | t_typical [us] | 25.00 | 27.00 | 1.08 | 1.12 | 1 of 3 | 3, 3 | <= 1.05"
                + " | undecided (< 5 rounds) |"), table);
        assertTrue(table.contains("| write_bw | 65536 | BW average [MB/s] | 56.00 | 53.00 | 0.95 | 0.95 | 0 of 1 | 1, 1"
                + " | >= 0.95 | undecided (< 5 rounds) |"), table);
        assertTrue(table.contains("read_lat 2 t_typical: C 24 26 25 / J 27 25 30;"), table);
        assertFalse(table.contains("Mixed pairs"), "no mixed table without --mixed runs:\n" + table);
    }

    @Test
    void verdictsComeFromTheIntervalOfThePerRoundRatios() throws Exception {
        String table = table(HEADER + """
                1 perftest send_lat 2 t_typical 10.0
                1 jrdma send_lat 2 t_typical 10.2
                2 jrdma send_lat 2 t_typical 9.9
                2 perftest send_lat 2 t_typical 10.0
                3 perftest send_lat 2 t_typical 14.0
                3 jrdma send_lat 2 t_typical 14.35
                4 jrdma send_lat 2 t_typical 10.4
                4 perftest send_lat 2 t_typical 10.0
                5 perftest send_lat 2 t_typical 10.0
                5 jrdma send_lat 2 t_typical 10.1
                1 perftest read_lat 2 t_typical 30.0
                1 jrdma read_lat 2 t_typical 33.0
                2 perftest read_lat 2 t_typical 30.0
                2 jrdma read_lat 2 t_typical 34.5
                3 perftest read_lat 2 t_typical 45.0
                3 jrdma read_lat 2 t_typical 48.0
                4 perftest read_lat 2 t_typical 30.0
                4 jrdma read_lat 2 t_typical 31.8
                5 perftest read_lat 2 t_typical 30.0
                5 jrdma read_lat 2 t_typical 36.0
                1 perftest write_bw 2 msg_rate 0.060
                1 jrdma write_bw 2 msg_rate 0.057
                2 perftest write_bw 2 msg_rate 0.060
                2 jrdma write_bw 2 msg_rate 0.051
                3 perftest write_bw 2 msg_rate 0.050
                3 jrdma write_bw 2 msg_rate 0.049
                4 perftest write_bw 2 msg_rate 0.060
                4 jrdma write_bw 2 msg_rate 0.058
                5 perftest write_bw 2 msg_rate 0.060
                5 jrdma write_bw 2 msg_rate 0.056
                """, "scripts/perf-compare --rounds 5");
        // Per round 1.02, 0.99, 1.025, 1.04, 1.01: the interval (the extremes, 93.8 % for 5 rounds)
        // is below 1.05, although round 3's slow boot moved both medians' tools alike.
        assertTrue(table.contains("| send_lat | 2 | t_typical [us] | 10.00 | 10.20 | 1.02 | 1.02 [0.99, 1.04] | 1 of 5 | 5, 5"
                + " | <= 1.05 | yes |"), table);
        // 1.10, 1.15, 1.067, 1.06, 1.20: all above 1.05.
        assertTrue(table.contains("| read_lat | 2 | t_typical [us] | 30.00 | 34.50 | 1.15 | 1.10 [1.06, 1.20] | 0 of 5 | 5, 5"
                + " | <= 1.05 | **no** |"), table);
        // 0.95, 0.85, 0.98, 0.967, 0.933: straddles 0.90, so neither met nor missed.
        assertTrue(table.contains("| write_bw | 2 | MsgRate [Mpps] | 0.0600 | 0.0560 | 0.93 | 0.95 [0.85, 0.98] | 0 of 5 | 5, 5"
                + " | >= 0.9 | undecided |"), table);
        assertTrue(table.contains("(93.8% for 5 rounds, at least 90%; none below 5 rounds)"), table);
    }

    @Test
    void moreRoundsNarrowTheIntervalPastOneOutlier() throws Exception {
        StringBuilder results = new StringBuilder(HEADER);
        double[] jrdma = {10.0, 10.1, 10.2, 10.25, 10.4, 10.5, 10.6, 20.0};
        for (int round = 1; round <= jrdma.length; round++) {
            results.append(round).append(" perftest write_lat 2 t_typical 10.0\n");
            results.append(round).append(" jrdma write_lat 2 t_typical ").append(jrdma[round - 1]).append('\n');
        }
        String table = table(results.toString(), "scripts/perf-compare --rounds 8");
        // 8 rounds: the 2nd smallest and 2nd largest (93.0 %); the 2.0 round does not reach the interval.
        assertTrue(table.contains("| write_lat | 2 | t_typical [us] | 10.00 | 10.32 | 1.03 | 1.03 [1.01, 1.06] | 0 of 8 | 8, 8"
                + " | <= 1.05 | undecided |"), table);
        assertTrue(table.contains("(93.0% for 8 rounds, at least 90%"), table);
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
        assertTrue(table.contains("| send_lat | 64 | t_typical [us] | 10.00 | 13.00 | 1.30 | 1.30 | 0 of 2 | 2, 2 | <= 1.05"
                + " | undecided (< 5 rounds) |"), table);
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
