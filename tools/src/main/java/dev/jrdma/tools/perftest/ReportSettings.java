// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.nio.file.Path;
import java.util.List;

/**
 * Reports: -C, -U, -W, --cpu_util, --report-both, --report-per-port, -f, -H, --out_json and
 * --out_json_file, with perftest's meanings (src/perftest_parameters.c, print_report_lat and
 * print_full_bw_report).
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixins by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 *
 * @param cycles        -C (latency tests): the latency figures in CPU cycles; jrdma has no cycle
 *                      counter, so they are its nanosecond times at the CPU clock that
 *                      /proc/cpuinfo reports ({@link CpuClock}), the clock perftest divides its
 *                      cycles by to print microseconds
 * @param unsorted      -U (latency tests): before the row, every sample in measurement order
 * @param histogram     -H (latency tests): before the row, the kept samples sorted
 * @param counters      -W: port counters (paths under /sys/class/infiniband/DEV/ports/PORT/)
 *                      whose change is printed after each row; empty for none
 * @param cpuUtil       --cpu_util: the CPU utilisation of a -D sample window in a last column
 * @param reportBoth    --report-both (BW tests): with -b, each direction's row after the sum
 * @param margin        -f: the seconds of a -D run's warm-up and cool-down margins, or -1 for
 *                      perftest's default of a quarter of the duration
 * @param outJsonFile   --out_json: the file the run's JSON document is written to
 *                      (--out_json_file, default {@link #DEFAULT_JSON_FILE}), or null
 */
public record ReportSettings(boolean cycles, boolean unsorted, boolean histogram, List<String> counters,
                             boolean cpuUtil, boolean reportBoth, int margin, Path outJsonFile) {
    /** perftest's DEFAULT_JSON_FILE_NAME, in the working directory. */
    public static final String DEFAULT_JSON_FILE = "perftest_out.json";

    /** None of the group's options given. */
    public static final ReportSettings DEFAULT = new ReportSettings(false, false, false, List.of(), false, false, -1,
            null);

    public ReportSettings {
        counters = List.copyOf(counters);
    }

    /** Whether samples are listed before a latency row (-U or -H). */
    public boolean listsSamples() {
        return unsorted || histogram;
    }

    /**
     * The margin of a -D window of {@code seconds}: -f, or perftest's default of a quarter of
     * the duration in whole seconds.
     */
    public int marginFor(int seconds) {
        return margin >= 0 ? margin : seconds / 4;
    }

    /**
     * The group's parameters for --json/--csv (perftest's JSON has none of them; -W's changes
     * are text only there and here): -f's margin (null: a quarter of -D), the --out_json file.
     */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("report_cycles", cycles);
        p.put("report_unsorted", unsorted);
        p.put("report_histogram", histogram);
        p.put("report_counters", counters);
        p.put("cpu_util", cpuUtil);
        p.put("report_both", reportBoth);
        p.put("margin", margin >= 0 ? margin : null);
        p.put("out_json_file", outJsonFile == null ? null : outJsonFile.toString());
        return p;
    }
}
