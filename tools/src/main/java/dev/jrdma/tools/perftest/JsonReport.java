// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * {@code --json}: one valid JSON document per run (perftest's --out_json writes a not-quite-JSON
 * file per size and overwrites it; see perftest issues #216, #236). Written with Jackson's
 * streaming generator: correct escaping and number output without databind or reflection.
 * Non-finite numbers (a peer's "inf") are written as null. The document opens with the run's
 * {@link Provenance} (schema_version, jrdma_version, start_time, java, libibverbs).
 */
public final class JsonReport {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private JsonReport() {
    }

    public static void write(RunReport r, Writer out) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            write(r, g);
        }
        out.write('\n');
        out.flush();
    }

    private static void write(RunReport r, JsonGenerator g) throws IOException {
        g.useDefaultPrettyPrinter();
        g.writeStartObject();
        Provenance p = r.provenance();
        g.writeNumberField("schema_version", p.schemaVersion());
        g.writeStringField("jrdma_version", p.jrdmaVersion());
        g.writeStringField("start_time", p.startTime().toString());
        g.writeStringField("java", p.java());
        g.writeStringField("libibverbs", p.libibverbs());
        g.writeStringField("test", r.test());
        g.writeStringField("title", r.info().title());
        g.writeStringField("role", r.info().client() ? "client" : "server");
        g.writeStringField("device", r.info().device());
        g.writeStringField("peer_version", r.peerVersion());
        g.writeObjectFieldStart("parameters");
        for (Map.Entry<String, Object> e : r.parameters().entrySet()) {
            g.writeFieldName(e.getKey());
            value(g, e.getValue());
        }
        g.writeEndObject();
        g.writeObjectFieldStart("endpoints");
        endpoints(g, "local", r.local());
        endpoints(g, "remote", r.remote());
        g.writeEndObject();
        if (!r.latency().isEmpty()) {
            g.writeStringField("unit", "usec");
            rows(g, "latency", r.latency(), (o, l) -> {
                number(o, "t_min", l.tMin());
                number(o, "t_max", l.tMax());
                number(o, "t_typical", l.tTypical());
                number(o, "t_avg", l.tAvg());
                number(o, "t_stdev", l.tStdev());
                number(o, "p99", l.p99());
                number(o, "p99_9", l.p999());
            });
        }
        if (!r.durationLatency().isEmpty()) {
            // -D: perftest's duration table has only the average and the transaction rate.
            if (r.latency().isEmpty()) {
                g.writeStringField("unit", "usec");
            }
            rows(g, "duration_latency", r.durationLatency(), (o, d) -> {
                number(o, "t_avg", d.tAvgUs());
                number(o, "tps", d.tps());
            });
        }
        if (!r.bandwidth().isEmpty()) {
            g.writeStringField("unit", r.gbits() ? "Gb/sec" : "MB/sec");
            rows(g, "bandwidth", r.bandwidth(), (o, b) -> {
                number(o, "bw_peak", b.bwPeak());
                number(o, "bw_average", b.bwAvg());
                number(o, "msg_rate_mpps", b.msgRate());
            });
        }
        g.writeEndObject();
    }

    /** The fields of one row after its size and iterations. */
    private interface RowFields<T> {
        void write(JsonGenerator g, T row) throws IOException;
    }

    /** A result table as an array of objects: "bytes", "iterations", then the row's own fields. */
    private static <T extends ResultRow> void rows(JsonGenerator g, String name, List<T> rows, RowFields<T> fields)
            throws IOException {
        g.writeArrayFieldStart(name);
        for (T row : rows) {
            g.writeStartObject();
            g.writeNumberField("bytes", row.size());
            g.writeNumberField("iterations", row.iters());
            fields.write(g, row);
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void endpoints(JsonGenerator g, String name, List<PeerInfo> qps) throws IOException {
        g.writeArrayFieldStart(name);
        for (PeerInfo p : qps) {
            g.writeStartObject();
            g.writeNumberField("lid", p.lid());
            g.writeNumberField("qpn", p.qpn());
            g.writeNumberField("psn", p.psn());
            g.writeNumberField("rkey", Integer.toUnsignedLong(p.rkey()));
            g.writeStringField("vaddr", "0x" + Long.toHexString(p.vaddr()));
            g.writeNumberField("out_reads", p.outReads());
            if (p.hasGid()) {
                g.writeStringField("gid", gid(p.gid()));
            } else {
                g.writeNullField("gid");
            }
            g.writeNumberField("srqn", Integer.toUnsignedLong(p.srqn()));
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** The usual IPv6 notation with groups of 4 hex digits, e.g. 0000:...:ffff:0ac8:0001. */
    static String gid(byte[] raw) {
        HexFormat hex = HexFormat.of();
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex.toHexDigits(raw[i])).append(hex.toHexDigits(raw[i + 1]));
        }
        return sb.toString();
    }

    private static void number(JsonGenerator g, String name, double v) throws IOException {
        if (Double.isFinite(v)) {
            g.writeNumberField(name, v);
        } else {
            g.writeNullField(name);
        }
    }

    private static void value(JsonGenerator g, Object v) throws IOException {
        switch (v) {
            case null -> g.writeNull();
            case Boolean b -> g.writeBoolean(b);
            case Integer i -> g.writeNumber(i);
            case Long l -> g.writeNumber(l);
            case Double d -> {
                if (Double.isFinite(d)) {
                    g.writeNumber(d);
                } else {
                    g.writeNull();
                }
            }
            case List<?> list -> {
                g.writeStartArray();
                for (Object e : list) {
                    value(g, e);
                }
                g.writeEndArray();
            }
            default -> g.writeString(v.toString());
        }
    }
}
