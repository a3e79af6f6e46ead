// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * {@code --csv}: one header line and one line per message size, with the run's identity
 * (test, role, device, connection, peer version) repeated on each line so that files of many
 * runs concatenate and load as one table. RFC 4180 quoting via Commons CSV.
 */
public final class CsvReport {
    /** Columns of a latency run. */
    public static final List<String> LATENCY_COLUMNS = List.of("test", "role", "device", "connection", "peer_version",
            "bytes", "iterations", "t_min_usec", "t_max_usec", "t_typical_usec", "t_avg_usec", "t_stdev_usec",
            "p99_usec", "p99_9_usec");
    /** Columns of a bandwidth run. */
    public static final List<String> BANDWIDTH_COLUMNS = List.of("test", "role", "device", "connection",
            "peer_version", "bytes", "iterations", "bw_peak", "bw_average", "msg_rate_mpps", "bw_unit");

    /** Columns of a -D latency run (perftest's duration table: average and transactions per second). */
    public static final List<String> DURATION_LATENCY_COLUMNS = List.of("test", "role", "device", "connection",
            "peer_version", "bytes", "iterations", "t_avg_usec", "tps");

    private CsvReport() {
    }

    public static void write(RunReport r, Appendable out) throws IOException {
        if (!r.durationLatency().isEmpty()) {
            CSVPrinter p = new CSVPrinter(out, CSVFormat.DEFAULT.builder().setRecordSeparator('\n')
                    .setHeader(DURATION_LATENCY_COLUMNS.toArray(String[]::new)).get());
            for (DurationLatency d : r.durationLatency()) {
                List<Object> row = identity(r);
                row.addAll(List.of(d.size(), d.iters(), num(d.tAvgUs()), num(d.tps())));
                p.printRecord(row);
            }
            p.flush();
            return;
        }
        boolean lat = !r.latency().isEmpty() || r.bandwidth().isEmpty() && !r.info().bandwidth();
        List<String> columns = lat ? LATENCY_COLUMNS : BANDWIDTH_COLUMNS;
        CSVFormat format = CSVFormat.DEFAULT.builder().setRecordSeparator('\n')
                .setHeader(columns.toArray(String[]::new)).get();
        CSVPrinter p = new CSVPrinter(out, format);
        if (lat) {
            for (LatencyReport l : r.latency()) {
                List<Object> row = identity(r);
                row.addAll(List.of(l.size(), l.iters(), num(l.tMin()), num(l.tMax()), num(l.tTypical()), num(l.tAvg()),
                        num(l.tStdev()), num(l.p99()), num(l.p999())));
                p.printRecord(row);
            }
        } else {
            for (BwReportData b : r.bandwidth()) {
                List<Object> row = identity(r);
                row.addAll(List.of(b.size(), b.iters(), num(b.bwPeak()), num(b.bwAvg()), num(b.msgRate()),
                        r.gbits() ? "Gb/sec" : "MB/sec"));
                p.printRecord(row);
            }
        }
        p.flush();
    }

    private static List<Object> identity(RunReport r) {
        List<Object> row = new ArrayList<>();
        row.add(r.test());
        row.add(r.info().client() ? "client" : "server");
        row.add(r.info().device());
        row.add(r.info().connection());
        row.add(r.peerVersion());
        return row;
    }

    /** Full precision, no exponent surprises for spreadsheets; non-finite as empty. */
    private static String num(double v) {
        return Double.isFinite(v) ? java.math.BigDecimal.valueOf(v).toPlainString() : "";
    }
}
