// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

class ReportWritersTest {
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");
    private static final PeerInfo LOCAL = new PeerInfo(0, 1, 0x12, 0x5a8577, 0x56f, 0x56475680b000L, GID, 0);
    private static final PeerInfo REMOTE = new PeerInfo(0, 1, 0x11, 0xcdfed9, 0x409, 0x55daec22b000L, GID, 0);

    private static TestInfo info(boolean bw) {
        return new TestInfo(bw ? Verb.WRITE : Verb.SEND, null, bw, false, true, "rxe0", 1, "IB", "RC", false, "ON", "OFF",
                1, 512, 1, 100, 1024, "Ethernet", 1, 0, 1, false, false, 0);
    }

    private static Map<String, Object> params() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("iterations", 1000L);
        p.put("all_sizes", true);
        p.put("mtu", 1024);
        p.put("device", "rxe0 \"quoted\"\n");
        return p;
    }

    private static RunReport latencySweep() {
        List<LatencyReport> rows = List.of(
                new LatencyReport(2, 1000, 5.1, 9.2, 5.5, 5.6, 0.25, 8.0, 9.2, new double[0]),
                new LatencyReport(4, 1000, 5.2, 9.3, 5.6, 5.7, 0.5, 8.1, 9.3, new double[0]),
                new LatencyReport(8, 1000, 5.3, Double.POSITIVE_INFINITY, 5.7, 5.8, Double.NaN, 8.2, 9.4, new double[0]));
        return new RunReport("send-lat", info(false), params(), "6.06", List.of(LOCAL), List.of(REMOTE), rows, List.of(),
                false);
    }

    @Test
    void jsonIsOneValidDocumentWithEverySizeAndBothEndpoints() throws Exception {
        StringWriter out = new StringWriter();
        JsonReport.write(latencySweep(), out);
        JsonNode doc = new ObjectMapper().readTree(out.toString());
        assertEquals("send-lat", doc.get("test").asText());
        assertEquals("Send Latency Test", doc.get("title").asText());
        assertEquals("client", doc.get("role").asText());
        assertEquals("6.06", doc.get("peer_version").asText());
        assertEquals(1000, doc.get("parameters").get("iterations").asLong());
        assertTrue(doc.get("parameters").get("all_sizes").asBoolean());
        assertEquals("rxe0 \"quoted\"\n", doc.get("parameters").get("device").asText());
        JsonNode local = doc.get("endpoints").get("local").get(0);
        assertEquals(0x12, local.get("qpn").asInt());
        assertEquals("0x56475680b000", local.get("vaddr").asText());
        assertEquals("0000:0000:0000:0000:0000:ffff:0ac8:0001", local.get("gid").asText());
        assertEquals(0x11, doc.get("endpoints").get("remote").get(0).get("qpn").asInt());
        JsonNode lat = doc.get("latency");
        assertEquals(3, lat.size());
        assertEquals(List.of(2L, 4L, 8L), List.of(lat.get(0).get("bytes").asLong(), lat.get(1).get("bytes").asLong(),
                lat.get(2).get("bytes").asLong()));
        assertEquals(5.5, lat.get(0).get("t_typical").asDouble());
        assertTrue(lat.get(2).get("t_max").isNull(), "non-finite numbers are null, not invalid JSON");
        assertTrue(lat.get(2).get("t_stdev").isNull());
        assertEquals("usec", doc.get("unit").asText());
    }

    @Test
    void jsonForBandwidth() throws Exception {
        RunReport r = new RunReport("write-bw", info(true), params(), "6.06", List.of(LOCAL), List.of(REMOTE), List.of(),
                List.of(new BwReportData(65536, 5000, 11000.5, 10000.25, 0.16)), true);
        StringWriter out = new StringWriter();
        JsonReport.write(r, out);
        JsonNode doc = new ObjectMapper().readTree(out.toString());
        assertEquals("Gb/sec", doc.get("unit").asText());
        assertEquals(10000.25, doc.get("bandwidth").get(0).get("bw_average").asDouble());
        assertEquals(5000, doc.get("bandwidth").get(0).get("iterations").asLong());
        assertTrue(doc.get("latency") == null);
    }

    @Test
    void csvHasAHeaderAndOneLinePerSize() throws Exception {
        StringBuilder out = new StringBuilder();
        CsvReport.write(latencySweep(), out);
        String[] lines = out.toString().split("\n");
        assertEquals(4, lines.length);
        assertEquals(String.join(",", CsvReport.LATENCY_COLUMNS), lines[0]);
        try (CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get()
                .parse(new StringReader(out.toString()))) {
            List<CSVRecord> rows = p.getRecords();
            assertEquals(3, rows.size());
            assertEquals("4", rows.get(1).get("bytes"));
            assertEquals("5.6", rows.get(1).get("t_typical_usec"));
            assertEquals("", rows.get(2).get("t_max_usec"));
            assertEquals("client", rows.get(0).get("role"));
        }
    }

    @Test
    void csvForBandwidth() throws Exception {
        RunReport r = new RunReport("write-bw", info(true), params(), "6.06", List.of(LOCAL), List.of(REMOTE), List.of(),
                List.of(new BwReportData(2, 5000, 0.5, 0.25, 0.125), new BwReportData(4, 5000, 1, 0.5, 0.125)), false,
                List.of(), PROVENANCE);
        StringBuilder out = new StringBuilder();
        CsvReport.write(r, out);
        String provenance = ",1,0.1.0,2026-11-28T10:00:00.123Z,\"25.0.3+9-LTS (OpenJDK, \"\"Server\"\" VM)\","
                + "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0\n";
        assertEquals("test,role,device,connection,peer_version,bytes,iterations,bw_peak,bw_average,msg_rate_mpps,"
                + "bw_unit,schema_version,jrdma_version,start_time,java,libibverbs\n"
                + "write-bw,client,rxe0,RC,6.06,2,5000,0.5,0.25,0.125,MB/sec" + provenance
                + "write-bw,client,rxe0,RC,6.06,4,5000,1.0,0.5,0.125,MB/sec" + provenance, out.toString());
    }

    /** A made-up provenance, with a comma and quotes in the JVM's name to show the quoting. */
    private static final Provenance PROVENANCE = new Provenance(1, "0.1.0", Instant.parse("2026-11-28T10:00:00.123Z"),
            "25.0.3+9-LTS (OpenJDK, \"Server\" VM)", "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0");

    /** Every report says which jrdma, schema, JVM and libibverbs made it, and when the run started. */
    @Test
    void jsonAndCsvCarryTheRunsProvenance() throws Exception {
        Instant before = Instant.now().minusMillis(1);
        RunReport r = latencySweep();
        StringWriter json = new StringWriter();
        JsonReport.write(r, json);
        JsonNode doc = new ObjectMapper().readTree(json.toString());
        assertEquals(Provenance.SCHEMA_VERSION, doc.get("schema_version").asInt());
        assertEquals(1, Provenance.SCHEMA_VERSION);
        assertEquals("development build", doc.get("jrdma_version").asText(), "tests run on classes, not the jar");
        Instant start = Instant.parse(doc.get("start_time").asText());
        assertTrue(!start.isBefore(before) && !start.isAfter(Instant.now()), start.toString());
        assertTrue(doc.get("java").asText().startsWith(Runtime.version() + " ("), doc.get("java").asText());
        String lib = doc.get("libibverbs").asText();
        assertTrue(lib.equals("not loaded") || lib.matches("/.*/libibverbs\\.so\\.1[.0-9]*"), lib);

        StringBuilder csv = new StringBuilder();
        CsvReport.write(r, csv);
        try (CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).get()
                .parse(new StringReader(csv.toString()))) {
            for (CSVRecord row : p.getRecords()) {
                for (String column : CsvReport.PROVENANCE_COLUMNS) {
                    assertEquals(doc.get(column).asText(), row.get(column), column);
                }
            }
        }
    }

    /** The CSV writer's quoting, read back by Commons CSV (an independent RFC 4180 parser). */
    @Test
    void csvFieldsRoundTripThroughAnRfc4180Parser() throws Exception {
        List<String> fields = List.of("plain", "", "a,b", "say \"hi\"", "two\nlines", "cr\rhere", " spaced ", "\"",
                "mlx5_0", "ünï");
        StringBuilder out = new StringBuilder();
        CsvWriter.record(out, fields);
        CsvWriter.record(out, List.of(1, 2.5));
        assertEquals("plain,,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\", spaced ,\"\"\"\",mlx5_0,ünï\n"
                + "1,2.5\n", out.toString());
        try (CSVParser p = CSVFormat.DEFAULT.parse(new StringReader(out.toString()))) {
            List<CSVRecord> records = p.getRecords();
            assertEquals(fields, records.get(0).toList());
            assertEquals(List.of("1", "2.5"), records.get(1).toList());
        }
    }
}
