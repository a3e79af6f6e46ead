// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code --csv}: one header line and one line per message size, with the run's identity
 * (test, role, device, connection, peer version) repeated on each line so that files of many
 * runs concatenate and load as one table, and its {@link Provenance} in the last columns
 * ({@link #PROVENANCE_COLUMNS}), which tell the runs apart. RFC 4180 quoting ({@link CsvWriter}).
 */
public final class CsvReport {
    /** The last columns of every table: the run's {@link Provenance}, the same on each line. */
    public static final List<String> PROVENANCE_COLUMNS = List.of("schema_version", "jrdma_version", "start_time",
            "java", "libibverbs");
    /** Columns of a latency run. */
    public static final List<String> LATENCY_COLUMNS = withProvenance("test", "role", "device", "connection",
            "peer_version", "bytes", "iterations", "t_min_usec", "t_max_usec", "t_typical_usec", "t_avg_usec",
            "t_stdev_usec", "p99_usec", "p99_9_usec");
    /** Columns of a bandwidth run. */
    public static final List<String> BANDWIDTH_COLUMNS = withProvenance("test", "role", "device", "connection",
            "peer_version", "bytes", "iterations", "bw_peak", "bw_average", "msg_rate_mpps", "bw_unit");

    /** Columns of a -D latency run (perftest's duration table: average and transactions per second). */
    public static final List<String> DURATION_LATENCY_COLUMNS = withProvenance("test", "role", "device", "connection",
            "peer_version", "bytes", "iterations", "t_avg_usec", "tps");

    private CsvReport() {
    }

    public static void write(RunReport r, Appendable out) throws IOException {
        if (!r.durationLatency().isEmpty()) {
            CsvWriter.record(out, DURATION_LATENCY_COLUMNS);
            for (DurationLatency d : r.durationLatency()) {
                CsvWriter.record(out, row(r, d.size(), d.iters(), num(d.tAvgUs()), num(d.tps())));
            }
            return;
        }
        boolean lat = !r.latency().isEmpty() || r.bandwidth().isEmpty() && !r.info().bandwidth();
        CsvWriter.record(out, lat ? LATENCY_COLUMNS : BANDWIDTH_COLUMNS);
        if (lat) {
            for (LatencyReport l : r.latency()) {
                CsvWriter.record(out, row(r, l.size(), l.iters(), num(l.tMin()), num(l.tMax()), num(l.tTypical()),
                        num(l.tAvg()), num(l.tStdev()), num(l.p99()), num(l.p999())));
            }
        } else {
            for (BwReportData b : r.bandwidth()) {
                CsvWriter.record(out, row(r, b.size(), b.iters(), num(b.bwPeak()), num(b.bwAvg()), num(b.msgRate()),
                        r.gbits() ? "Gb/sec" : "MB/sec"));
            }
        }
    }

    private static List<String> withProvenance(String... columns) {
        return Stream.concat(Stream.of(columns), PROVENANCE_COLUMNS.stream()).toList();
    }

    /** The run's identity, the row's values, the run's provenance. */
    private static List<Object> row(RunReport r, Object... values) {
        List<Object> row = new ArrayList<>();
        row.add(r.test());
        row.add(r.info().client() ? "client" : "server");
        row.add(r.info().device());
        row.add(r.info().connection());
        row.add(r.peerVersion());
        row.addAll(List.of(values));
        Provenance p = r.provenance();
        row.addAll(List.of(p.schemaVersion(), p.jrdmaVersion(), p.startTime(), p.java(), p.libibverbs()));

        return row;
    }

    /** Full precision, no exponent surprises for spreadsheets; non-finite as empty. */
    private static String num(double v) {
        return Double.isFinite(v) ? java.math.BigDecimal.valueOf(v).toPlainString() : "";
    }
}
