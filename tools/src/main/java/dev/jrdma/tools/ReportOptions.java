// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.ReportSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * perftest's report options (picocli mixins with perftest's names), per the tests perftest's
 * usage() offers them on: {@link ReportOptions} on every test, {@link Latency} on the latency
 * tests, {@link Bandwidth} on the BW tests; {@link #resolve} turns them into
 * {@link ReportSettings}.
 */
final class ReportOptions {
    @Option(names = {"-W", "--report-counters"}, paramLabel = "LIST", split = ",",
            description = "Print the change of these port counters after each row, as perftest: names under "
                    + "/sys/class/infiniband/DEV/ports/PORT/, comma separated (e.g. hw_counters/sent_pkts,"
                    + "hw_counters/rcvd_pkts).")
    List<String> counters;

    @Option(names = "--cpu_util",
            description = "Add the CPU utilisation of the sample window to each row (user time over user and idle "
                    + "time of /proc/stat, as perftest). Only with -D: without it the option is ignored with "
                    + "perftest's warning.")
    boolean cpuUtil;

    @Option(names = {"-f", "--margin"}, paramLabel = "SECONDS",
            description = "The warm-up and cool-down margins of a -D run, left out of the sample window "
                    + "(default: a quarter of the duration); the duration must exceed twice the margin.")
    Integer margin;

    @Option(names = "--out_json",
            description = "Also write the run's JSON document (jrdma's --json document: every row of the run, "
                    + "valid JSON) to --out_json_file; the text report is printed as usual.")
    boolean outJson;

    @Option(names = "--out_json_file", paramLabel = "FILE",
            description = "The file of --out_json (default: " + ReportSettings.DEFAULT_JSON_FILE
                    + " in the working directory); without --out_json nothing is written, as in perftest.")
    Path outJsonFile;

    /** -C, -U, -H: the latency tests. */
    static final class Latency {
        @Option(names = {"-C", "--report-cycles"},
                description = "Report the latencies in CPU cycles, as perftest (its table header keeps [usec]). "
                        + "jrdma times with System.nanoTime: the figures are those times at the CPU clock "
                        + "/proc/cpuinfo reports, the clock perftest divides its cycles by to print microseconds.")
        boolean cycles;

        @Option(names = {"-U", "--report-unsorted"},
                description = "Before the row, list every sample (the n-1 intervals between posts) in the order "
                        + "measured, as perftest's '#, usec' list.")
        boolean unsorted;

        @Option(names = {"-H", "--report-histogram"},
                description = "Before the row, list the kept samples (n-3: the two largest are left out) sorted, "
                        + "as perftest's '#, usec' list.")
        boolean histogram;
    }

    /** --report-both, --report-per-port: the BW tests. */
    static final class Bandwidth {
        @Option(names = "--report-both",
                description = "With -b, print each direction's row (local, remote) after the sum, as perftest.")
        boolean reportBoth;

        @Option(names = "--report-per-port",
                description = "perftest's per-port columns of a -D run with -O (--dualport); jrdma refuses it: "
                        + "its loops do not count per port.")
        boolean reportPerPort;
    }

    /**
     * The report settings of a command line.
     *
     * @param latency  the latency tests' mixin, or null on a BW test
     * @param bw       the BW tests' mixin, or null on a latency test
     * @param duration -D in seconds (the --run_infinitely period included), 0 without
     * @throws ParameterException naming the option on invalid input
     */
    static ReportSettings resolve(CommandSpec spec, TestKind kind, ReportOptions all, Latency latency, Bandwidth bw,
                                  int duration) {
        List<String> counters = new ArrayList<>();
        if (all.counters != null) {
            for (String c : all.counters) {
                String name = c.strip();
                if (name.isEmpty() || name.startsWith("/") || List.of(name.split("/")).contains("..")) {
                    throw usage(spec, "option '--report-counters' (-W): '" + c
                            + "' is not a counter under /sys/class/infiniband/DEV/ports/PORT/");
                }
                counters.add(name);
            }
        }
        int margin = -1;
        if (all.margin != null) {
            margin = all.margin;
            // perftest checks DURATION > 2*MARGIN against its default duration of 5 s without -D.
            int d = duration > 0 ? duration : 5;
            if (margin < 0 || d <= 2L * margin) {
                throw usage(spec, "option '--margin' (-f): the duration (" + d
                        + " s) must exceed twice the margin, got " + margin);
            }
        }
        if (bw != null && bw.reportPerPort) {
            // perftest: "report per port feature work only with Duration and Dualport".
            throw usage(spec, "option '--report-per-port': perftest reports per "
                    + "port only with -D and -O (--dualport); jrdma's loops do not count per port");
        }
        Path json = null;
        if (all.outJson) {
            json = all.outJsonFile != null ? all.outJsonFile : Path.of(ReportSettings.DEFAULT_JSON_FILE);
        }   // --out_json_file alone names a file nothing is written to, as in perftest
        return new ReportSettings(latency != null && latency.cycles, latency != null && latency.unsorted,
                latency != null && latency.histogram, counters, all.cpuUtil,
                bw != null && bw.reportBoth, margin, json);
    }
}
