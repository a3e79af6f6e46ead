// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code --plot FILE.png|FILE.svg}: the result drawn with XChart, headless.
 * <ul>
 * <li>Latency test, one size: the percentile curve of the kept samples (HdrHistogram), latency in
 *     microseconds against the percentile on a "number of nines" axis (90%, 99%, 99.9% ... equally
 *     spaced), which is where the tail that perftest's table summarises in two numbers shows.</li>
 * <li>Latency test, -a: t_min, t_typical, 99% and 99.9% against the message size.</li>
 * <li>BW test, -a: BW average (left axis, MB/s or Gb/s as the table) and message rate (right axis,
 *     Mpps) against the message size.</li>
 * </ul>
 * Sizes are on a log2 axis labelled in B/KiB/MiB. A BW run of one size is a single point and is
 * refused on the command line.
 */
public final class ResultPlot {
    /** Pixel size of the bitmap (and the SVG's nominal size). */
    static final int WIDTH = 1000;
    static final int HEIGHT = 600;
    /** The percentile curve stops at this many nines (99.9999%): beyond it, n samples are too few. */
    private static final double MAX_NINES = 6;

    /** The output formats, by file name extension. */
    public enum Format {
        PNG, SVG;

        /** The format for a file name ending in .png or .svg (any case), or null. */
        public static Format of(Path file) {
            Path name = file.getFileName();
            String n = name == null ? "" : name.toString().toLowerCase(Locale.ROOT);
            return n.endsWith(".png") ? PNG : n.endsWith(".svg") ? SVG : null;
        }
    }

    private ResultPlot() {
    }

    /**
     * Draws the report into {@code file}, format by extension.
     *
     * @throws IllegalArgumentException when the extension is not .png/.svg or the report has
     *                                  nothing to draw
     */
    public static void write(RunReport report, Path file) throws IOException {
        Format format = Format.of(file);
        if (format == null) {
            throw new IllegalArgumentException("plot file must end in .png or .svg: " + file);
        }
        XYChart chart = chart(report);
        // Charts are drawn into an off-screen image; never open a display connection.
        System.setProperty("java.awt.headless", "true");
        try (OutputStream out = Files.newOutputStream(file)) {
            if (format == Format.PNG) {
                BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
            } else {
                VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
            }
        }
    }

    /** The chart for the report (exposed for tests). */
    static XYChart chart(RunReport r) {
        if (!r.latency().isEmpty()) {
            return r.latency().size() == 1 ? percentileCurve(r) : latencyVsSize(r);
        }
        if (r.bandwidth().size() > 1) {
            return bandwidthVsSize(r);
        }
        throw new IllegalArgumentException(r.bandwidth().isEmpty() ? "nothing to plot: the report has no rows"
                : "a BW run of one size is a single point: plot an -a sweep");
    }

    private static XYChart base(String title, String xTitle, String yTitle) {
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        Styler s = c.getStyler();
        // Below the plot: inside, the legend hides the start of a falling or rising curve.
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setLegendLayout(Styler.LegendLayout.Horizontal);
        s.setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setPlotGridLinesVisible(true);
        return c;
    }

    private static String subtitle(RunReport r) {
        String role = r.info().client() ? "client" : "server";
        return r.info().title() + " - " + r.test() + " on " + r.info().device() + " (" + role + ", "
                + r.info().connection() + ")";
    }

    private static XYChart percentileCurve(RunReport r) {
        LatencyReport row = r.latency().get(0);
        if (row.samplesUs().length == 0) {
            throw new IllegalArgumentException("nothing to plot: the latency row has no samples");
        }
        Histogram h = row.histogram();
        List<Double> nines = new ArrayList<>();
        List<Double> micros = new ArrayList<>();
        for (HistogramIterationValue v : h.percentiles(5)) {
            double p = v.getPercentileLevelIteratedTo() / 100.0;
            if (p >= 1.0) {
                break;   // 100% is infinitely many nines; the maximum is in the table
            }
            double n = -Math.log10(1.0 - p);
            if (n > MAX_NINES) {
                break;
            }
            nines.add(n);
            micros.add(h.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0);
        }
        XYChart c = base(subtitle(r) + ", " + row.size() + " bytes", "Percentile", "Latency [usec]");
        c.getStyler().setxAxisTickLabelsFormattingFunction(ResultPlot::percentileLabel);
        c.getStyler().setXAxisMin(0.0);
        XYSeries s = c.addSeries("latency (" + row.iters() + " iterations)", nines, micros);
        s.setMarker(SeriesMarkers.NONE);
        addMarker(c, "t_typical", 0.5, row.tTypical());
        addMarker(c, "99%", 0.99, row.p99());
        addMarker(c, "99.9%", 0.999, row.p999());
        return c;
    }

    /** The table's percentiles as single points on the curve, so the two can be compared. */
    private static void addMarker(XYChart c, String name, double p, double us) {
        XYSeries s = c.addSeries(name, new double[] {-Math.log10(1.0 - p)}, new double[] {us});
        s.setMarker(SeriesMarkers.CIRCLE);
    }

    private static XYChart latencyVsSize(RunReport r) {
        XYChart c = base(subtitle(r), "Message size", "Latency [usec]");
        c.getStyler().setxAxisTickLabelsFormattingFunction(ResultPlot::sizeLabel);
        List<LatencyReport> rows = r.latency();
        double[] x = new double[rows.size()];
        double[][] y = new double[4][rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            LatencyReport row = rows.get(i);
            x[i] = log2(row.size());
            y[0][i] = row.tMin();
            y[1][i] = row.tTypical();
            y[2][i] = row.p99();
            y[3][i] = row.p999();
        }
        String[] names = {"t_min", "t_typical", "99%", "99.9%"};
        for (int k = 0; k < names.length; k++) {
            c.addSeries(names[k], x, finite(y[k]));
        }
        return c;
    }

    private static XYChart bandwidthVsSize(RunReport r) {
        String unit = r.gbits() ? "Gb/sec" : "MB/sec";
        XYChart c = base(subtitle(r), "Message size", "BW average [" + unit + "]");
        c.getStyler().setxAxisTickLabelsFormattingFunction(ResultPlot::sizeLabel);
        c.setYAxisGroupTitle(0, "BW average [" + unit + "]");
        c.setYAxisGroupTitle(1, "Message rate [Mpps]");
        c.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        c.getStyler().putYAxisGroupDecimalPatternMap(1, "0.0###");
        List<BwReportData> rows = r.bandwidth();
        double[] x = new double[rows.size()];
        double[] bw = new double[rows.size()];
        double[] rate = new double[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            x[i] = log2(rows.get(i).size());
            bw[i] = rows.get(i).bwAvg();
            rate[i] = rows.get(i).msgRate();
        }
        c.addSeries("BW average [" + unit + "]", x, finite(bw)).setYAxisGroup(0);
        c.addSeries("MsgRate [Mpps]", x, finite(rate)).setYAxisGroup(1);
        return c;
    }

    /** A peer's "inf"/"nan" would break the axis scaling: draw those points at 0. */
    private static double[] finite(double[] v) {
        double[] out = v.clone();
        for (int i = 0; i < out.length; i++) {
            if (!Double.isFinite(out[i])) {
                out[i] = 0;
            }
        }
        return out;
    }

    private static double log2(long size) {
        return Math.log(size) / Math.log(2);
    }

    /** Tick label for log2(size): "2 B", "64 KiB", "8 MiB" (fractional ticks as plain bytes). */
    static String sizeLabel(double log2Size) {
        double bytes = Math.pow(2, log2Size);
        long b = Math.round(bytes);
        if (Math.abs(bytes - b) > 1e-6 * bytes) {
            return String.format(Locale.ROOT, "%.0f B", bytes);
        }
        if (b >= 1 << 20 && b % (1 << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b >= 1 << 10 && b % (1 << 10) == 0) {
            return (b >> 10) + " KiB";
        }
        return b + " B";
    }

    /**
     * Tick label for a number of nines: 0 -> "0%", 1 -> "90%", 2 -> "99%", 3 -> "99.9%"; ticks
     * between whole nines stay unlabelled (68.377223% says nothing).
     */
    static String percentileLabel(double nines) {
        if (Math.abs(nines - Math.rint(nines)) > 1e-9) {
            return "";
        }
        double p = 100.0 * (1.0 - Math.pow(10, -nines));
        String s = String.format(Locale.ROOT, "%.6f", p).replaceAll("0+$", "").replaceAll("\\.$", "");
        return s + "%";
    }
}
