// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * perftest 6.06's bandwidth report ({@code print_report_bw}, src/perftest_parameters.c) with
 * System.nanoTime-based timestamps instead of CPU cycles.
 *
 * <p>Definitions, with {@code N = iters x qps} messages of {@code size} bytes,
 * {@code posted[i]} the time message i was posted and {@code completed[j]} the time the
 * completion covering message j was polled (recorded at every {@code cqMod}-th message and at
 * the last one; the caller must record every such slot):
 * <ul>
 * <li>BW average = size x N / (completed[N-1] - posted[0]), in MB/s with MB = 2^20 bytes, or
 *     in Gb/s with Gb = 10^9 bits (--report_gbits: bytes/s / 125,000,000);</li>
 * <li>MsgRate = N / (completed[N-1] - posted[0]) in millions per second;</li>
 * <li>BW peak = size / t_min, where t_min is the smallest average time per message over every
 *     window [posted[i], completed[j]] with i stepping by the post-list size and j running over
 *     the moderated completions (j = roundUp(i+1, cqMod) - 1, +cqMod ...) plus the last
 *     message; the whole run is the starting value. perftest divides in whole cycles; we keep
 *     fractions of a nanosecond.</li>
 * </ul>
 * With no peak (-N, duration runs, send_bw's server, more than 20000 iterations) perftest
 * records one completion time only (index 0), prints BW peak 0 and divides by
 * completed[0] - posted[0].
 */
public final class BandwidthMath {
    /** Bytes per MB in perftest's MB/sec (MBS): 2^20. */
    public static final double MEBIBYTE = 0x100000;
    /** Bytes per second in one Gb/s (GBS): 10^9 / 8. */
    public static final double GIGABIT_BYTES = 125_000_000;

    private BandwidthMath() {
    }

    /**
     * @param size        message size in bytes
     * @param messages    N = iters x qps (for duration runs: the messages counted)
     * @param posted      post times in ns (at least index 0)
     * @param completed   completion times in ns (index N-1 used unless noPeak, then index 0)
     * @param cqMod       completion moderation (-Q), >= 1
     * @param postList    post list size (1 unless -l), >= 1
     * @param noPeak      skip the peak search and report BW peak 0
     * @param gbits       report in Gb/s instead of MB/s
     */
    public static BwReportData report(long size, long messages, long[] posted, long[] completed, int cqMod,
                                      int postList, boolean noPeak, boolean gbits) {
        if (messages < 1) {
            throw new IllegalArgumentException("no messages");
        }
        if (cqMod < 1 || postList < 1) {
            throw new IllegalArgumentException("cqMod and postList must be >= 1");
        }
        double unit = gbits ? GIGABIT_BYTES : MEBIBYTE;
        int last = noPeak ? 0 : Math.toIntExact(messages - 1);
        double seconds = (completed[last] - posted[0]) / 1e9;
        double bwAvg = size * (double) messages / seconds / unit;
        double msgRate = messages / seconds / 1e6;
        double peak = 0;
        if (!noPeak) {
            // perftest starts from completed[0] - posted[0] in unsigned cycles; completed[0] is only
            // recorded when cqMod == 1 (then the loop covers it) and is 0 otherwise, which makes the
            // unsigned difference huge. So the loop alone decides.
            double best = Double.POSITIVE_INFINITY;
            int n = Math.toIntExact(messages);
            for (int i = 0; i < n; i += postList) {
                for (int j = roundUp(i + 1, cqMod) - 1; j < n; j += cqMod) {
                    best = window(best, completed[j] - posted[i], j - i + 1);
                }
                if (n % cqMod != 0) {
                    int j = n - 1;
                    best = window(best, completed[j] - posted[i], j - i + 1);
                }
            }
            peak = size / (best / 1e9) / unit;
        }
        return new BwReportData(size, messages, peak, bwAvg, msgRate);
    }

    /**
     * perftest's cycle differences are unsigned: an unrecorded slot (0) gives a huge value that
     * never wins. With nanoTime a non-positive difference plays that role.
     */
    private static double window(double best, long elapsed, int messages) {
        return elapsed > 0 ? Math.min(best, elapsed / (double) messages) : best;
    }

    private static int roundUp(int value, int alignment) {
        return value % alignment == 0 ? value : alignment * (value / alignment + 1);
    }
}
