// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.CsvReport;
import dev.jrdma.tools.perftest.DurationLatency;
import dev.jrdma.tools.perftest.JsonReport;
import dev.jrdma.tools.perftest.LatencyReport;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestFormat;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.ReportFiles;
import dev.jrdma.tools.perftest.RunReport;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.io.PrintWriter;
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

    RunOutput(PerftestSettings s, PrintWriter out) {
        this.s = s;
        this.out = out;
        this.text = !s.json() && !s.csv() && s.output() == null;
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
        return s.kind().bandwidth() || s.client() || verb == Verb.SEND || verb == Verb.WRITE;
    }

    /** Both sides' address lines, then the result table's header (or the line a passive side prints). */
    void connection(List<PeerInfo> mine, List<PeerInfo> peers) {
        if (!text) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < peers.size(); i++) {
            sb.append(PerftestFormat.address(true, mine.get(i), s.kind().verb()));
            sb.append(PerftestFormat.address(false, peers.get(i), s.kind().verb()));
        }
        if (!table()) {
            sb.append(PerftestFormat.LINE).append('\n');
        } else if (s.kind().bandwidth()) {
            sb.append(PerftestFormat.bandwidthTableHeader(s.reportGbits()));
        } else {
            sb.append(PerftestFormat.latencyTableHeader(s.durationSeconds() > 0));
        }
        print(sb.toString());
    }

    void latencyRow(LatencyReport r) {
        latencyRows.add(r);
        print(PerftestFormat.latencyRow(r));
    }

    void latencyRow(DurationLatency r) {
        durationRows.add(r);
        print(r.row());
    }

    void bandwidthRow(BwReportData r) {
        bwRows.add(r);
        print(PerftestFormat.bandwidthRow(r, s.reportGbits()));
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
                latencyRows, bwRows, s.reportGbits(), durationRows);
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
                out.print(PerftestFormat.single(r.tAvg()));
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
