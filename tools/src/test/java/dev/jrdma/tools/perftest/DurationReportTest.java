// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** -D output against the captured perftest duration runs (golden/*-D.*.txt). */
class DurationReportTest {
    private static String lineAfterHeader(String file, String header) {
        List<String> lines = Golden.lines(file);
        return lines.get(lines.indexOf(header) + 1) + "\n";
    }

    @Test
    void latencyDurationRowsMatchPerftestCharacterForCharacter() {
        String header = PerftestFormat.LAT_DURATION_HEADER;
        assertEquals(lineAfterHeader("ib_send_lat-D.client.txt", header),
                PerftestFormat.latencyDurationRow(2, 366, 4107.86, 121.72));
        assertEquals(lineAfterHeader("ib_read_lat-D.client.txt", header),
                PerftestFormat.latencyDurationRow(2, 103917, 28.90, 34603.23));
        assertTrue(PerftestFormat.latencyTableHeader(true).endsWith(header + "\n"));
    }

    @Test
    void durationLatencyMath() {
        // send_lat: 366 round trips in 366 x 8215.72 us -> 4107.86 us one way, 121.72 round trips/s (the capture).
        DurationLatency d = DurationLatency.of(2, 366, Math.round(366 * 8215.72 * 1000), true);
        assertEquals(4107.86, d.tAvgUs(), 1e-6);
        assertEquals(121.72, d.tps(), 0.005);
        assertEquals(lineAfterHeader("ib_send_lat-D.client.txt", PerftestFormat.LAT_DURATION_HEADER), d.row());
        // read_lat: not halved; 1000 reads in 25 ms -> 25 us, 40000 tps.
        DurationLatency r = DurationLatency.of(2, 1000, 25_000_000L, false);
        assertEquals(25.0, r.tAvgUs(), 1e-9);
        assertEquals(40000.0, r.tps(), 1e-6);
        assertThrows(IllegalArgumentException.class, () -> DurationLatency.of(2, 0, 1, true));
        assertThrows(IllegalArgumentException.class, () -> DurationLatency.of(2, 5, 0, true));
    }

    @Test
    void durationRowsInJsonAndCsv() throws Exception {
        TestInfo info = new TestInfo(Verb.SEND, null, false, false, true, "rxe0", 1, "IB", "RC", false, "ON", "OFF", 1,
                512, 1, 1, 1024, "Ethernet", 1, 0, 0, false, false, 3);
        DurationLatency d = DurationLatency.of(2, 366, Math.round(366 * 8215.72 * 1000), true);
        RunReport r = new RunReport("send-lat", info, java.util.Map.of("duration_seconds", 3), "6.06", List.of(),
                List.of(), List.of(), List.of(), false, List.of(d));
        java.io.StringWriter json = new java.io.StringWriter();
        JsonReport.write(r, json);
        com.fasterxml.jackson.databind.JsonNode doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.toString());
        assertEquals("usec", doc.get("unit").asText());
        assertEquals(366, doc.get("duration_latency").get(0).get("iterations").asLong());
        assertEquals(4107.86, doc.get("duration_latency").get(0).get("t_avg").asDouble(), 1e-6);
        assertTrue(doc.get("latency") == null, "no percentile table in a duration run");
        StringBuilder csv = new StringBuilder();
        CsvReport.write(r, csv);
        List<String> lines = csv.toString().lines().toList();
        assertEquals(String.join(",", CsvReport.DURATION_LATENCY_COLUMNS), lines.get(0));
        assertTrue(lines.get(1).startsWith("send-lat,client,rxe0,RC,6.06,2,366,4107.86"), lines.get(1));
        assertEquals(2, lines.size());
    }

    @Test
    void bandwidthDurationRowHasNoPeak() {
        // ib_send_bw -D 3 client: 976 messages of 64 KiB, BW peak 0 (duration runs never compute one).
        String expected = lineAfterHeader("ib_send_bw-D.client.txt", PerftestFormat.BW_HEADER);
        double seconds = 976 * 65536 / (20.32 * BandwidthMath.MEBIBYTE);
        long[] posted = {0};
        long[] completed = {Math.round(seconds * 1e9)};
        BwReportData r = BandwidthMath.report(65536, 976, posted, completed, 1, 1, true, false);
        assertEquals(expected, PerftestFormat.bandwidthRow(r, false));
    }
}
