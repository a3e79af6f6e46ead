// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/** The {@link WaitStrategy} implementations; records, so that they print and compare by value. */
final class WaitStrategies {
    private WaitStrategies() {}

    /** The defaults of {@link WaitStrategy#backoff()}. */
    static final int SPINS = 100;
    static final int YIELDS = 10;
    static final long MIN_PARK_MICROS = 10;
    static final long MAX_PARK_MICROS = 10_000;

    static final WaitStrategy BUSY_POLL = new BusyPoll();
    static final WaitStrategy BUSY_SPIN = new BusySpin();
    static final WaitStrategy YIELDING = new Yielding();
    static final Backoff BACKOFF = new Backoff(SPINS, YIELDS, MIN_PARK_MICROS * 1_000, MAX_PARK_MICROS * 1_000);
    static final WaitStrategy THREAD_AWARE = new ThreadAware(BACKOFF, BUSY_SPIN);

    record BusyPoll() implements WaitStrategy {
        @Override
        public void idle(int emptyPolls) {
            // nothing: poll again at once
        }

        @Override
        public String toString() {
            return "busy poll";
        }
    }

    record BusySpin() implements WaitStrategy {
        @Override
        public void idle(int emptyPolls) {
            Thread.onSpinWait();
        }

        @Override
        public String toString() {
            return "busy spin";
        }
    }

    record Yielding() implements WaitStrategy {
        @Override
        public void idle(int emptyPolls) {
            Thread.yield();
        }

        @Override
        public String toString() {
            return "yielding";
        }
    }

    /** Spins, yields, then parks from {@code minParkNanos} doubling up to {@code maxParkNanos}. */
    record Backoff(int spins, int yields, long minParkNanos, long maxParkNanos) implements WaitStrategy {
        static Backoff of(int spins, int yields, Duration minPark, Duration maxPark) {
            if (spins < 0 || yields < 0) {
                throw new IllegalArgumentException("spins and yields cannot be negative: " + spins + ", " + yields);
            }
            long min = minPark.toNanos();
            long max = maxPark.toNanos();
            if (min < 1 || max < min) {
                throw new IllegalArgumentException("parks need 0 < minPark <= maxPark, not " + minPark + ", " + maxPark);
            }
            return new Backoff(spins, yields, min, max);
        }

        @Override
        public void idle(int emptyPolls) {
            if (emptyPolls <= spins) {
                Thread.onSpinWait();
            } else if (emptyPolls - spins <= yields) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(this, park(emptyPolls - spins - yields - 1));
            }
        }

        @Override
        public boolean parks(int emptyPolls) {
            return emptyPolls - spins > yields;
        }

        /** The park after {@code doublings} earlier parks: minParkNanos << doublings, at most maxParkNanos. */
        long park(int doublings) {
            if (doublings >= Long.numberOfLeadingZeros(minParkNanos)) {
                return maxParkNanos;   // the shift would overflow
            }
            return Math.min(minParkNanos << doublings, maxParkNanos);
        }

        @Override
        public String toString() {
            return "backoff (" + spins + " spins, " + yields + " yields, parks of " + minParkNanos / 1_000.0
                    + " to " + maxParkNanos / 1_000.0 + " µs)";
        }
    }

    /** {@code virtual} on a virtual thread, {@code platform} on a platform thread. */
    record ThreadAware(WaitStrategy virtual, WaitStrategy platform) implements WaitStrategy {
        @Override
        public void idle(int emptyPolls) {
            (Thread.currentThread().isVirtual() ? virtual : platform).idle(emptyPolls);
        }

        @Override
        public boolean parks(int emptyPolls) {
            return (Thread.currentThread().isVirtual() ? virtual : platform).parks(emptyPolls);
        }

        @Override
        public String toString() {
            return "thread-aware: " + virtual + " on a virtual thread, " + platform + " on a platform thread";
        }
    }
}
