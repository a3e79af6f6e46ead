// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.RateSettings;

/**
 * perftest's software rate limiter (--rate_limit_type SW, run_iter_bw): the sender posts in
 * bursts of {@code burst} messages; a burst may start once the clock has reached its deadline,
 * and each started burst moves the deadline on by one gap (burst / rate), from the previous
 * deadline rather than from the clock, so a late burst is followed by the next one at once and
 * the average rate holds. Between bursts the loop only polls completions.
 *
 * <p>The clock is the caller's: {@link #allowance(long)} takes the time, so the schedule is a pure
 * function of the times it is given (tests give it their own); the loop passes
 * {@code System.nanoTime()}. Nothing is allocated per call.
 */
final class SoftwareRateLimiter {
    private final long gapNanos;
    private final int burst;
    private long deadline;
    private int left;

    /**
     * @param gapNanos the time from one burst's start to the next's
     * @param burst    the messages of one burst, at least 1
     */
    SoftwareRateLimiter(long gapNanos, int burst) {
        if (gapNanos <= 0 || burst <= 0) {
            throw new IllegalArgumentException("gap " + gapNanos + " ns, burst " + burst);
        }
        this.gapNanos = gapNanos;
        this.burst = burst;
    }

    /**
     * The limiter of {@code rate} at {@code size} bytes, or null when the settings limit nothing
     * in software.
     *
     * @param txDepth perftest's default burst (--burst_size 0)
     */
    static SoftwareRateLimiter of(RateSettings rate, long size, int txDepth) {
        if (!rate.software()) {
            return null;
        }
        int burst = rate.burstSize() > 0 ? rate.burstSize() : txDepth;
        return new SoftwareRateLimiter(rate.burstGapNanos(size, burst), burst);
    }

    /** Starts the schedule: the first burst may go at {@code now}. */
    void start(long now) {
        deadline = now;
        left = 0;
    }

    /**
     * How many messages may be posted at {@code now}: the rest of the current burst, a whole new
     * burst once its deadline has come, or 0 until then.
     */
    int allowance(long now) {
        if (left == 0) {
            if (deadline - now > 0) {
                return 0;
            }
            deadline += gapNanos;
            left = burst;
        }
        return left;
    }

    /** Accounts {@code messages} posted out of the current allowance (a larger count ends the burst). */
    void posted(int messages) {
        left = Math.max(0, left - messages);
    }

    /** {@return the time the next burst may start, once the current one is used up} */
    long deadline() {
        return deadline;
    }
}
