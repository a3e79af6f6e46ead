// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * perftest's lists of latency samples before a row ({@code print_report_lat}): -U lists the
 * n-1 intervals between posts in the order measured, -H the kept ones (the two largest left
 * out) sorted; each list is a {@code "#, usec"} line (with -C {@code "#, cycles"}) and one
 * {@code "i, value"} line per sample, the value in C's {@code %g}.
 */
public final class SampleList {
    private SampleList() {
    }

    /**
     * -U: the intervals between consecutive posts, halved for the ping-pong tests, in measurement order.
     *
     * @param postNanos the post times of the run (System.nanoTime)
     * @param roundTrip send/write latency: an interval is a round trip
     * @param perMicro  the unit per microsecond: 1 for usec, the CPU MHz for -C's cycles
     */
    public static String unsorted(long[] postNanos, boolean roundTrip, double perMicro, boolean cycles) {
        StringBuilder sb = new StringBuilder(units(cycles));
        double divisor = 1000.0 * (roundTrip ? 2 : 1);
        for (int i = 0; i + 1 < postNanos.length; i++) {
            sb.append(i + 1).append(", ").append(g((postNanos[i + 1] - postNanos[i]) / divisor * perMicro)).append('\n');
        }
        return sb.toString();
    }

    /** -H: the row's kept samples, sorted, as {@link LatencyReport#samplesUs()} holds them. */
    public static String sorted(LatencyReport r, double perMicro, boolean cycles) {
        StringBuilder sb = new StringBuilder(units(cycles));
        double[] samples = r.samplesUs();
        for (int i = 0; i < samples.length; i++) {
            sb.append(i + 1).append(", ").append(g(samples[i] * perMicro)).append('\n');
        }
        return sb.toString();
    }

    private static String units(boolean cycles) {
        return cycles ? "#, cycles\n" : "#, usec\n";
    }

    /**
     * C's {@code %g}: 6 significant digits, trailing zeros removed, exponent form (at least two
     * exponent digits) when the exponent is below -4 or at least 6.
     */
    public static String g(double v) {
        if (Double.isNaN(v)) {
            return Double.doubleToRawLongBits(v) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == 0) {
            return (Double.doubleToRawLongBits(v) < 0) ? "-0" : "0";
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exponent = d.precision() - d.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            BigDecimal mantissa = d.movePointLeft(exponent);
            String m = strip(mantissa.toPlainString());
            String e = Integer.toString(Math.abs(exponent));
            return m + "e" + (exponent < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
        }
        return strip(d.toPlainString());
    }

    private static String strip(String s) {
        if (s.indexOf('.') < 0) {
            return s;
        }
        int end = s.length();
        while (s.charAt(end - 1) == '0') {
            end--;
        }
        if (s.charAt(end - 1) == '.') {
            end--;
        }
        return s.substring(0, end);
    }
}
