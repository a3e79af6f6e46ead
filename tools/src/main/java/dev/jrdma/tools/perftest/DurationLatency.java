// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * The latency row of a -D run, as perftest 6.06's {@code print_report_lat_duration} defines it:
 * only an average, from the iterations counted in the measurement window and the window's length.
 * <ul>
 * <li>t_avg = window / iterations, halved for the ping-pong tests (send, write: an iteration is a
 *     round trip), in microseconds;</li>
 * <li>tps = iterations / window in seconds (round trips per second for send/write).</li>
 * </ul>
 * perftest has no distribution in duration mode (its issue #80); jrdma's device part may keep the
 * samples as well, for --histogram and --plot.
 *
 * @param size   message size in bytes
 * @param iters  iterations counted in the window
 * @param tAvgUs average latency in microseconds
 * @param tps    transactions per second
 */
public record DurationLatency(long size, long iters, double tAvgUs, double tps) implements ResultRow {

    /**
     * @param windowNanos the measurement window (perftest: tcompleted[0] - tposted[0])
     * @param roundTrip   true for send/write latency
     */
    public static DurationLatency of(long size, long iters, long windowNanos, boolean roundTrip) {
        if (iters < 1 || windowNanos <= 0) {
            throw new IllegalArgumentException("need at least one iteration in a positive window, got " + iters
                    + " in " + windowNanos + " ns");
        }
        double us = windowNanos / 1000.0;
        return new DurationLatency(size, iters, us / (roundTrip ? 2 : 1) / iters, iters / (windowNanos / 1e9));
    }

    /** The table row (REPORT_FMT_LAT_DUR). */
    public String row() {
        return PerftestFormat.latencyDurationRow(size, iters, tAvgUs, tps);
    }
}
