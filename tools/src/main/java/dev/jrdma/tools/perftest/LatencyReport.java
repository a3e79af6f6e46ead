// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.PrintStream;
import java.util.Arrays;
import org.HdrHistogram.Histogram;

/**
 * One row of perftest's latency table, computed as perftest 6.06's {@code print_report_lat}
 * defines it (src/perftest_parameters.c), from the post timestamps of an iteration run.
 *
 * <p>All values in microseconds. For {@code n} iterations:
 * <ol>
 * <li>{@code n-1} deltas between consecutive post timestamps, each divided by 2 for the
 *     ping-pong tests (send, write: a delta is a round trip) and not for read/atomic;</li>
 * <li>sorted ascending; the {@code m = n-3} smallest are "kept" (perftest's
 *     {@code LAT_MEASURE_TAIL} of 2 drops the two largest);</li>
 * <li>t_min = sorted[0]; <b>t_max = sorted[m]</b>, i.e. the second largest delta (the smaller
 *     of the two "dropped" ones - perftest prints it as t_max);</li>
 * <li>t_typical = median of the kept: sorted[m/2] for odd m, the mean of sorted[m/2-1] and
 *     sorted[m/2] for even m;</li>
 * <li>t_avg and t_stdev over the kept (population standard deviation);</li>
 * <li>99% = sorted[ceil(0.99 m)], 99.9% = sorted[ceil(0.999 m)] - indexes into the full sorted
 *     array, so they may land on a dropped sample (for n = 1000, 99.9% == t_max).</li>
 * </ol>
 * Deviation, on purpose: perftest truncates each deviation from the mean to a whole
 * microsecond (an {@code int} temporary) before squaring, so its t_stdev is 0.00 for any run
 * whose samples lie within 1 us of the mean. We compute the standard deviation exactly.
 * perftest also takes the median of two middle values in integer CPU cycles; we keep
 * nanosecond precision.
 *
 * @param size     message size in bytes
 * @param iters    iterations (n)
 * @param samplesUs the kept samples, sorted, in microseconds (for histograms; length m)
 */
public record LatencyReport(long size, long iters, double tMin, double tMax, double tTypical, double tAvg,
                            double tStdev, double p99, double p999, double[] samplesUs)
        implements ResultRow {

    /** perftest's LAT_MEASURE_TAIL: how many of the largest deltas are left out. */
    public static final int TAIL = 2;
    /** perftest's MIN_ITER. */
    public static final int MIN_ITERS = 5;

    /**
     * Computes the row from the post timestamps.
     *
     * @param size        message size in bytes
     * @param postNanos   the post timestamp of each iteration (System.nanoTime), length n >= 5
     * @param roundTrip   true for send/write latency (halve each delta), false for read/atomic
     */
    public static LatencyReport fromPostTimes(long size, long[] postNanos, boolean roundTrip) {
        int n = postNanos.length;
        if (n < MIN_ITERS) {
            throw new IllegalArgumentException("need at least " + MIN_ITERS + " iterations, got " + n);
        }
        long[] delta = new long[n - 1];
        for (int i = 0; i < n - 1; i++) {
            delta[i] = postNanos[i + 1] - postNanos[i];
        }
        return fromDeltas(size, n, delta, roundTrip ? 2 : 1);
    }

    /**
     * Computes the row from {@code iters-1} raw deltas in nanoseconds ({@code divisor} 2 for
     * round trips). The array is sorted in place.
     */
    public static LatencyReport fromDeltas(long size, long iters, long[] deltaNanos, int divisor) {
        int count = deltaNanos.length;
        if (count < MIN_ITERS - 1) {
            throw new IllegalArgumentException("need at least " + (MIN_ITERS - 1) + " deltas, got " + count);
        }
        Arrays.sort(deltaNanos);
        double unit = 1000.0 * divisor;   // ns -> us, per one-way trip
        int m = count - TAIL;
        double median = (m % 2 == 0)
                ? (deltaNanos[m / 2 - 1] + deltaNanos[m / 2]) / 2.0 / unit
                : deltaNanos[m / 2] / unit;
        double[] kept = new double[m];
        double sum = 0;
        for (int i = 0; i < m; i++) {
            kept[i] = deltaNanos[i] / unit;
            sum += kept[i];
        }
        double avg = sum / m;
        double squares = 0;
        for (double v : kept) {
            squares += (v - avg) * (v - avg);
        }
        double stdev = Math.sqrt(squares / m);
        // Same double expressions as perftest's ceil((measure_cnt) * 0.99), so the same index.
        int i99 = (int) Math.ceil(m * 0.99);
        int i999 = (int) Math.ceil(m * 0.999);
        return new LatencyReport(size, iters, deltaNanos[0] / unit, deltaNanos[m] / unit, median, avg, stdev,
                deltaNanos[i99] / unit, deltaNanos[i999] / unit, kept);
    }

    /**
     * The kept samples in an HdrHistogram (nanosecond resolution, 3 significant digits) for the
     * percentile distribution export; the table above does not use it.
     */
    public Histogram histogram() {
        Histogram h = new Histogram(3);
        for (double us : samplesUs) {
            h.recordValue(Math.max(0, Math.round(us * 1000.0)));
        }
        return h;
    }

    /** HdrHistogram's percentile distribution of the kept samples, in microseconds. */
    public void writePercentileDistribution(PrintStream out) {
        histogram().outputPercentileDistribution(out, 5, 1000.0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LatencyReport r && size == r.size && iters == r.iters && tMin == r.tMin && tMax == r.tMax
                && tTypical == r.tTypical && tAvg == r.tAvg && tStdev == r.tStdev && p99 == r.p99 && p999 == r.p999
                && Arrays.equals(samplesUs, r.samplesUs);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(size) * 31 + Double.hashCode(tTypical);
    }

    @Override
    public String toString() {
        return "LatencyReport[size=" + size + ", iters=" + iters + ", tMin=" + tMin + ", tMax=" + tMax + ", tTypical="
                + tTypical + ", tAvg=" + tAvg + ", tStdev=" + tStdev + ", p99=" + p99 + ", p999=" + p999 + "]";
    }
}
