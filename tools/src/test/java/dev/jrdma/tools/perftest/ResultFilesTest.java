// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;

/** --histogram and --plot, driven by RunReports built from synthetic samples. */
class ResultFilesTest {
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");
    private static final PeerInfo LOCAL = new PeerInfo(0, 1, 0x12, 0x5a8577, 0x56f, 0x56475680b000L, GID, 0);
    private static final PeerInfo REMOTE = new PeerInfo(0, 1, 0x11, 0xcdfed9, 0x409, 0x55daec22b000L, GID, 0);

    @TempDir
    Path dir;

    private static TestInfo info(Verb verb, boolean bw) {
        return new TestInfo(verb, null, bw, false, true, "rxe0", 1, "IB", "RC", false, "ON", "OFF", 1, 512, 1,
                100, 1024, "Ethernet", 1, 0, 1, false, false, 0);
    }

    /**
     * A send_lat row from 10000 synthetic round trips: 4 us one way with a 1% tail at 12-20 us,
     * so the percentile curve has a visible knee near 99%.
     */
    static LatencyReport syntheticRow(long size, long seed) {
        Random r = new Random(seed);
        long[] deltas = new long[9999];
        for (int i = 0; i < deltas.length; i++) {
            double oneWayUs = r.nextInt(100) == 0 ? 12 + 8 * r.nextDouble() : 4 + 0.15 * r.nextGaussian() + size / 1000.0;
            deltas[i] = Math.round(oneWayUs * 2000);   // round trip in ns
        }
        return LatencyReport.fromDeltas(size, 10000, deltas, 2);
    }

    private static RunReport latency(List<LatencyReport> rows) {
        return new RunReport("send-lat", info(Verb.SEND, false), Map.of("iterations", 10000L), "6.06", List.of(LOCAL),
                List.of(REMOTE), rows, List.of(), false);
    }

    private static RunReport bandwidthSweep(boolean gbits) {
        List<BwReportData> rows = new ArrayList<>();
        for (int i = 1; i < 24; i++) {
            long size = 1L << i;
            double seconds = 5000 * (1.5e-6 + size / 3.0e9);   // 1.5 us per message + 3 GB/s
            double unit = gbits ? BandwidthMath.GIGABIT_BYTES : BandwidthMath.MEBIBYTE;
            double bw = size * 5000.0 / seconds / unit;
            rows.add(new BwReportData(size, 5000, bw * 1.05, bw, 5000 / seconds / 1e6));
        }
        return new RunReport("write-bw", info(Verb.WRITE, true), Map.of("all_sizes", true), "6.06", List.of(LOCAL),
                List.of(REMOTE), List.of(), rows, gbits);
    }

    @Test
    void histogramFileIsHdrHistogramsPercentileDistributionInMicroseconds() throws Exception {
        RunReport r = latency(List.of(syntheticRow(2, 1)));
        Path f = dir.resolve("lat.hgrm");
        HistogramFile.write(r, f);
        List<String> lines = Files.readAllLines(f);
        assertEquals("#[jrdma send-lat: 2 bytes, 10000 iterations, 9997 samples kept, latency in usec]", lines.get(0));
        assertTrue(lines.get(1).strip().startsWith("Value"), lines.get(1));
        assertTrue(lines.get(1).contains("Percentile") && lines.get(1).contains("TotalCount"), lines.get(1));
        String text = String.join("\n", lines);
        assertTrue(text.contains("#[Mean"), text);
        assertTrue(text.contains("#[Max"), text);
        // The median line is within 3 significant digits of the table's t_typical, in microseconds.
        LatencyReport row = r.latency().get(0);
        double median = lines.stream().skip(3).map(String::strip).filter(l -> !l.startsWith("#") && !l.isEmpty())
                .map(l -> l.split("\\s+")).filter(c -> Double.parseDouble(c[1]) >= 0.5).mapToDouble(c -> Double.parseDouble(c[0]))
                .findFirst().orElseThrow();
        assertEquals(row.tTypical(), median, row.tTypical() * 0.002);
        // Total count = the kept samples.
        assertTrue(text.contains("Total count    =         9997]"), text);
    }

    @Test
    void histogramOfASweepHasOneSectionPerSize() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HistogramFile.write(latency(List.of(syntheticRow(2, 1), syntheticRow(4, 2), syntheticRow(8, 3))), out);
        String text = out.toString(StandardCharsets.US_ASCII);
        assertEquals(3, text.lines().filter(l -> l.startsWith("#[jrdma send-lat:")).count(), text);
        assertTrue(text.contains("#[jrdma send-lat: 8 bytes"), text);
    }

    @Test
    void histogramNeedsLatencySamples() {
        assertThrows(IllegalArgumentException.class, () -> HistogramFile.write(bandwidthSweep(false), new ByteArrayOutputStream()));
        RunReport noSamples = latency(List.of(new LatencyReport(2, 1000, 1, 2, 1, 1, 0, 2, 2, new double[0])));
        assertThrows(IllegalArgumentException.class, () -> HistogramFile.write(noSamples, new ByteArrayOutputStream()));
    }

    @Test
    void latencyPlotIsAPercentileCurveWithLabelledAxes() throws Exception {
        RunReport r = latency(List.of(syntheticRow(2, 1)));
        XYChart c = ResultPlot.chart(r);
        assertEquals("Percentile", c.getXAxisTitle());
        assertEquals("Latency [usec]", c.getYAxisTitle());
        assertTrue(c.getTitle().contains("Send Latency Test") && c.getTitle().contains("2 bytes"), c.getTitle());
        assertTrue(c.getSeriesMap().containsKey("99%"));
        double[] ys = c.getSeriesMap().get("latency (10000 iterations)").getYData();
        for (int i = 1; i < ys.length; i++) {
            assertTrue(ys[i] >= ys[i - 1], "a percentile curve never falls");
        }
        Path png = dir.resolve("lat.png");
        ResultPlot.write(r, png);
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(ResultPlot.WIDTH, img.getWidth());
        assertEquals(ResultPlot.HEIGHT, img.getHeight());
        copyForInspection(png);
    }

    @Test
    void latencySweepPlotsPercentilesAgainstSize() throws Exception {
        List<LatencyReport> rows = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            rows.add(syntheticRow(1L << i, i));
        }
        XYChart c = ResultPlot.chart(latency(rows));
        assertEquals("Message size", c.getXAxisTitle());
        assertEquals(List.of("t_min", "t_typical", "99%", "99.9%"), List.copyOf(c.getSeriesMap().keySet()));
        Path svg = dir.resolve("sweep.svg");
        ResultPlot.write(latency(rows), svg);
        String text = Files.readString(svg);
        assertTrue(text.contains("<svg"), text.substring(0, Math.min(200, text.length())));
    }

    @Test
    void bandwidthSweepPlotsBwAndMessageRateOnTwoAxes() throws Exception {
        XYChart c = ResultPlot.chart(bandwidthSweep(false));
        assertEquals("BW average [MB/sec]", c.getYAxisGroupTitle(0));
        assertEquals("Message rate [Mpps]", c.getYAxisGroupTitle(1));
        assertEquals(23, c.getSeriesMap().get("MsgRate [Mpps]").getXData().length);
        assertEquals(1, c.getSeriesMap().get("MsgRate [Mpps]").getYAxisGroup());
        assertEquals("BW average [Gb/sec]", ResultPlot.chart(bandwidthSweep(true)).getYAxisGroupTitle(0));
        Path png = dir.resolve("bw.png");
        ResultPlot.write(bandwidthSweep(false), png);
        assertEquals(ResultPlot.WIDTH, ImageIO.read(png.toFile()).getWidth());
        copyForInspection(png);
        Path svg = dir.resolve("bw.SVG");
        ResultPlot.write(bandwidthSweep(false), svg);
        assertTrue(Files.readString(svg).contains("<svg"));
    }

    @Test
    void formatsAndRefusals() {
        assertEquals(ResultPlot.Format.PNG, ResultPlot.Format.of(Path.of("a/b.PNG")));
        assertEquals(ResultPlot.Format.SVG, ResultPlot.Format.of(Path.of("b.svg")));
        assertNull(ResultPlot.Format.of(Path.of("b.pdf")));
        assertThrows(IllegalArgumentException.class, () -> ResultPlot.write(bandwidthSweep(false), dir.resolve("x.pdf")));
        RunReport oneSize = new RunReport("write-bw", info(Verb.WRITE, true), Map.of(), "6.06", List.of(LOCAL),
                List.of(REMOTE), List.of(), List.of(new BwReportData(65536, 5000, 1, 1, 1)), false);
        assertThrows(IllegalArgumentException.class, () -> ResultPlot.chart(oneSize));
    }

    private static PerftestSettings settings(TestKind kind, Path histogram, Path plot) {
        return new PerftestSettings(kind, "host", null, 1, 1, 18515, 0, TestKind.Connection.RC, false, 14, 7, 0,
                List.of(2L), false, 10000, 0, 1, 512, -1, 1, 1, false, false, false, false, -1, null, null, false,
                false, histogram, plot, java.time.Duration.ofSeconds(60), 0, List.of(), ReportSettings.DEFAULT,
                RunSettings.DEFAULT, PostSettings.DEFAULT, AddressSettings.DEFAULT, RateSettings.DEFAULT,
                MemorySettings.DEFAULT, OperationSettings.DEFAULT, -1, 0);
    }

    @Test
    void reportFilesWritesWhatWasAskedForAndNamesTheOptionOnFailure() throws Exception {
        RunReport r = latency(List.of(syntheticRow(2, 1)));
        Path h = dir.resolve("h.hgrm");
        Path p = dir.resolve("p.svg");
        assertEquals(List.of(h, p), ReportFiles.write(r, settings(TestKind.SEND_LAT, h, p)));
        assertTrue(Files.size(h) > 0 && Files.size(p) > 0);
        assertEquals(List.of(), ReportFiles.write(r, settings(TestKind.SEND_LAT, null, null)));
        Path missingDir = dir.resolve("no/such/dir/p.png");
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> ReportFiles.write(r, settings(TestKind.SEND_LAT, null, missingDir)));
        assertTrue(e.getMessage().startsWith("--plot " + missingDir + ": "), e.getMessage());
    }

    @Test
    void tickLabels() {
        assertEquals("2 B", ResultPlot.sizeLabel(1));
        assertEquals("512 B", ResultPlot.sizeLabel(9));
        assertEquals("64 KiB", ResultPlot.sizeLabel(16));
        assertEquals("8 MiB", ResultPlot.sizeLabel(23));
        assertEquals("0%", ResultPlot.percentileLabel(0));
        assertEquals("90%", ResultPlot.percentileLabel(1));
        assertEquals("99%", ResultPlot.percentileLabel(2));
        assertEquals("99.9%", ResultPlot.percentileLabel(3));
        assertEquals("99.999%", ResultPlot.percentileLabel(5));
        assertEquals("", ResultPlot.percentileLabel(2.5));
    }

    /** --out_json's file holds the --json document, replacing what the file held (perftest's O_TRUNC). */
    @Test
    void outJsonFileIsTheJsonDocumentAndReplacesTheFile() throws Exception {
        RunReport r = latency(List.of(syntheticRow(2, 1)));
        Path f = dir.resolve("perftest_out.json");
        Files.writeString(f, "x".repeat(1 << 16));
        ReportFiles.json(r, f);
        java.io.StringWriter expected = new java.io.StringWriter();
        JsonReport.write(r, expected);
        String written = Files.readString(f);
        assertEquals(expected.toString(), written);
        assertTrue(written.startsWith("{") && written.contains("\"schema_version\"") && written.endsWith("}\n"),
                written);
    }

    /** Keeps the PNGs under target/plots so a person (or a review) can look at them. */
    private static void copyForInspection(Path png) throws Exception {
        Path out = Path.of("target", "plots");
        Files.createDirectories(out);
        Files.copy(png, out.resolve(png.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
