// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.CpuClock;
import dev.jrdma.tools.perftest.CsvReport;
import dev.jrdma.tools.perftest.DurationLatency;
import dev.jrdma.tools.perftest.JsonReport;
import dev.jrdma.tools.perftest.LatencyReport;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestFormat;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.PortCounters;
import dev.jrdma.tools.perftest.Provenance;
import dev.jrdma.tools.perftest.ReportFiles;
import dev.jrdma.tools.perftest.RunReport;
import dev.jrdma.tools.perftest.SampleList;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a run prints and writes: perftest's text as it goes (header, address lines, one row per
 * size), or at the end --json, --csv or -o's single numbers, and the result files.
 */
final class RunOutput {
    private final PerftestSettings s;
    private final PrintWriter out;
    /** perftest's text report (not --json, --csv or -o). */
    private final boolean text;
    private final List<LatencyReport> latencyRows = new ArrayList<>();
    private final List<DurationLatency> durationRows = new ArrayList<>();
    private final List<BwReportData> bwRows = new ArrayList<>();
    /** When the command started, for the reports' provenance (the runner builds this first). */
    private final Instant started = Instant.now();
    /** --cpu_util in a -D run: the rows' last column. */
    private final boolean cpuColumn;
    /** -W, once {@link #open}ed. */
    private PortCounters counters;
    /** -C: the CPU clock in MHz, once {@link #open}ed; 1 for microseconds. */
    private double perMicro = 1;
    /** --cpu_util: the last sample window's utilisation. */
    private double cpuUtil;
    /** -w/-y: whether a row met the limit (perftest ORs over the rows it verifies). */
    private boolean bwPassed;
    private boolean ratePassed;

    RunOutput(PerftestSettings s, PrintWriter out) {
        this.s = s;
        this.out = out;
        this.text = !s.json() && !s.csv() && s.output() == null;
        this.cpuColumn = s.reports().cpuUtil() && s.durationSeconds() > 0 && !s.run().runInfinitely();
    }

    /**
     * What the report options need from the system, before the run: -W's counters (read once
     * here, as perftest reads them when it connects) and -C's clock.
     */
    void open(String device, int port) throws IOException {
        if (!s.reports().counters().isEmpty()) {
            counters = PortCounters.open(PortCounters.sysfs(), device, port, s.reports().counters());
        }
        if (s.reports().cycles()) {
            perMicro = CpuClock.mhz();
        }
    }

    /** --cpu_util: the utilisation of the run about to be printed. */
    void cpuUtil(double percent) {
        cpuUtil = percent;
    }

    /** The server's line before it waits for a client. */
    void waiting() {
        print(PerftestFormat.WAITING);
    }

    void header(TestInfo info) {
        print(Addressing.header(s, info, PerftestFormat.header(info)));
    }

    /** Whether this side prints a result table (a passive read/atomic server prints a line instead). */
    private boolean table() {
        Verb verb = s.kind().verb();
        return s.kind().bandwidth() || s.testClient() || verb == Verb.SEND || verb == Verb.WRITE;
    }

    /**
     * Both sides' address lines (--connectionless: this side's only; the remote LID is --dlid's
     * where given, as perftest prints it), then the result table's header (or the line a passive
     * side prints).
     */
    void connection(List<PeerInfo> mine, List<PeerInfo> peers) {
        if (!text) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < mine.size(); i++) {
            sb.append(PerftestFormat.address(true, mine.get(i), s.kind().verb()));
            if (i < peers.size()) {   // --connectionless has no peer
                sb.append(PerftestFormat.address(false, peers.get(i), s.kind().verb(), s.dlid()));
            }
        }
        if (!table()) {
            sb.append(PerftestFormat.LINE).append('\n');
        } else {
            sb.append(withCpuHeader(tableHeader()));
        }
        print(sb.toString());
    }

    private String tableHeader() {
        return s.kind().bandwidth() ? PerftestFormat.bandwidthTableHeader(s.reportGbits())
                : PerftestFormat.latencyTableHeader(s.durationSeconds() > 0);
    }

    void latencyRow(LatencyReport r) {
        latencyRow(r, null);
    }

    /**
     * A latency row; with -U and {@code postTimes} first every sample as measured, with -H the
     * kept ones sorted, then (after either) the table header again, as perftest's print_report_lat.
     */
    void latencyRow(LatencyReport r, long[] postTimes) {
        latencyRows.add(r);
        if (!text) {
            return;
        }
        boolean cycles = s.reports().cycles();
        StringBuilder sb = new StringBuilder();
        if (s.reports().unsorted() && postTimes != null) {
            sb.append(SampleList.unsorted(postTimes, roundTrip(), perMicro, cycles));
        }
        if (s.reports().histogram()) {
            sb.append(SampleList.sorted(r, perMicro, cycles));
        }
        if (!sb.isEmpty()) {
            sb.append(withCpuHeader(tableHeader()));
        }
        LatencyReport shown = perMicro == 1 ? r : new LatencyReport(r.size(), r.iters(), r.tMin() * perMicro,
                r.tMax() * perMicro, r.tTypical() * perMicro, r.tAvg() * perMicro, r.tStdev() * perMicro,
                r.p99() * perMicro, r.p999() * perMicro, r.samplesUs());
        sb.append(withCpuColumn(PerftestFormat.latencyRow(shown)));
        print(sb.toString());
        printCounters();
    }

    private boolean roundTrip() {
        Verb verb = s.kind().verb();
        return verb == Verb.SEND || verb == Verb.WRITE;
    }

    void latencyRow(DurationLatency r) {
        durationRows.add(r);
        print(withCpuColumn(r.row()));
        printCounters();
    }

    void bandwidthRow(BwReportData r) {
        bwRows.add(r);
        // -w/-y: perftest ORs "this row met the limit" over the rows it prints (for -b: the sums).
        bwPassed |= !(s.run().limitBw() >= 0 && s.run().limitBw() > r.bwAvg());
        ratePassed |= !(s.run().limitMsgRate() >= 0 && s.run().limitMsgRate() > r.msgRate());
        print(withCpuColumn(PerftestFormat.bandwidthRow(r, s.reportGbits())));
        printCounters();
    }

    /** -w/-y at the end of the run: perftest's error line, or null when the limits were met. */
    String verifierError() {
        if (s.run().limitBw() >= 0 && !bwPassed) {
            return "Error: BW result is below bw limit";
        }
        if (s.run().limitMsgRate() >= 0 && !ratePassed) {
            return "Error: Msg rate  is below msg_rate limit";
        }
        return null;
    }

    /**
     * --report-both with -b: after the sum, each direction's row under its own title and
     * header, as perftest's write/read/atomic/send BW tests print them.
     */
    void reportBoth(BwReportData local, BwReportData remote) {
        if (!text || !s.reports().reportBoth() || !s.bidirectional()) {
            return;
        }
        String header = withCpuHeader(PerftestFormat.bandwidthTableHeader(s.reportGbits()).substring(
                PerftestFormat.LINE.length() + 1));
        String colon = s.kind() == TestKind.ATOMIC_BW ? ":" : ": ";   // atomic_bw's titles have no space
        print(PerftestFormat.LINE + "\n\n Local results" + colon + "\n" + PerftestFormat.LINE + "\n" + header
                + withCpuColumn(PerftestFormat.bandwidthRow(local, s.reportGbits())) + PerftestFormat.LINE
                + "\n\n Remote results" + colon + "\n" + PerftestFormat.LINE + "\n" + header
                + withCpuColumn(PerftestFormat.bandwidthRow(remote, s.reportGbits())));
    }

    /** A line of perftest's text as is (e.g. --run_infinitely's "User stopped traffic"). */
    void line(String text) {
        print(text);
    }

    /** --cpu_util: a table header ends in RESULT_EXT_CPU_UTIL instead of its newline. */
    private String withCpuHeader(String header) {
        return cpuColumn ? header.substring(0, header.length() - 1) + "    CPU_Util[%]\n" : header;
    }

    /** --cpu_util: a row ends in REPORT_EXT_CPU_UTIL ("\t    %-3.2f\n") instead of its newline. */
    private String withCpuColumn(String row) {
        return cpuColumn ? row.substring(0, row.length() - 1) + "\t    " + PerftestFormat.fixed(cpuUtil, 3, 2) + "\n"
                : row;
    }

    private void printCounters() {
        if (counters == null || !text) {
            return;
        }
        try {
            print(counters.print());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void print(String text) {
        if (this.text) {
            out.print(text);
            out.flush();
        }
    }

    /** The end of the run: the table's closing line, or the --json/--csv/-o report; then the result files. */
    void finish(TestInfo info, Map<String, Object> parameters, String peerVersion, List<PeerInfo> mine,
                List<PeerInfo> remote) throws IOException {
        RunReport report = new RunReport(s.kind().command(), info, parameters, peerVersion, mine, remote,
                latencyRows, bwRows, s.reportGbits(), durationRows, Provenance.of(started));
        if (text) {
            if (table()) {
                out.print(PerftestFormat.LINE + "\n");
            }
        } else if (s.json()) {
            JsonReport.write(report, out);
        } else if (s.csv()) {
            CsvReport.write(report, out);
        } else if (s.output() != null) {
            for (LatencyReport r : latencyRows) {
                out.print(PerftestFormat.single(r.tAvg() * perMicro));   // -C: in cycles, as perftest's average
            }
            for (DurationLatency r : durationRows) {
                out.print(PerftestFormat.single(r.tAvgUs()));
            }
            for (BwReportData r : bwRows) {
                out.print(PerftestFormat.single(switch (s.output()) {
                    case message_rate -> r.msgRate();
                    default -> r.bwAvg();
                }));
            }
        }
        out.flush();
        ReportFiles.write(report, s);
    }

    boolean isText() {
        return text;
    }
}
