// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import dev.jrdma.RateLimit;

/**
 * The rate limiter: --rate_limit, --rate_units, --rate_limit_type, --burst_size, --typical_pkt_size.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 * <p>
 * perftest's arithmetic, kept here so that it can be checked without a device: the software
 * limiter sends bursts of {@code burst} messages, one burst every {@code burst / pps} seconds,
 * where pps is the rate in messages per second at the run's message size
 * ({@link #packetsPerSecond}); the hardware limiters hand the device a rate in kb/s
 * ({@link #hardwareLimit}).
 *
 * @param type              --rate_limit_type, {@link Type#NONE} without a limit
 * @param typeGiven         --rate_limit_type was given: a hardware limit the device refuses is
 *                          then an error; without it perftest falls back to the software limiter
 * @param limit             --rate_limit in {@code units} (positive), 0 without a limit
 * @param units             --rate_units
 * @param burstSize         --burst_size in messages, 0 for perftest's default (the TX depth); for
 *                          PP the device's largest burst in bytes, 0 for its default
 * @param typicalPacketSize --typical_pkt_size in bytes (PP only), 0 for the device's default
 */
public record RateSettings(Type type, boolean typeGiven, double limit, Units units, int burstSize,
                           int typicalPacketSize) {
    /** None of the group's options given. */
    public static final RateSettings DEFAULT = new RateSettings(Type.NONE, false, 0, Units.GBPS, 0, 0);

    /** perftest's rate_limit_type. */
    public enum Type {
        /** No limiter (DISABLE_RATE_LIMIT). */
        NONE,
        /** The software limiter: the sender paces its posts in bursts. */
        SW,
        /** A rate limit the device enforces on the QP. */
        HW,
        /** Packet pacing: a device rate limit with a burst and a typical packet size. */
        PP
    }

    /** perftest's rate_units, by its one-letter names. */
    public enum Units {
        /** M: MiB/s (2^20 bytes). */
        MIBPS("M"),
        /** g: Gb/s (10^9 bits), perftest's default. */
        GBPS("g"),
        /** p: messages per second. */
        PPS("p");

        private final String letter;

        Units(String letter) {
            this.letter = letter;
        }

        /** {@return the letter perftest's --rate_units takes} */
        public String letter() {
            return letter;
        }

        /** {@return the units for perftest's letter, or null} */
        public static Units ofLetter(String letter) {
            for (Units u : values()) {
                if (u.letter.equals(letter)) {
                    return u;
                }
            }
            return null;
        }
    }

    /** {@return whether the sender paces its posts itself} */
    public boolean software() {
        return type == Type.SW;
    }

    /** {@return whether the device is asked to limit the QPs' rate} */
    public boolean hardware() {
        return type == Type.HW || type == Type.PP;
    }

    /** {@return the same limit enforced by the software limiter (perftest's fallback)} */
    public RateSettings asSoftware() {
        return new RateSettings(Type.SW, typeGiven, limit, units, type == Type.PP ? 0 : burstSize, 0);
    }

    /**
     * The software limiter's rate in messages per second at {@code size} bytes, as perftest
     * computes it (and truncates it to an integer): MiB/s x 2^20 / size, Gb/s x 10^9 / (8 size),
     * or the limit itself for pps.
     *
     * @throws IllegalArgumentException when the limit is below one message per second at this size
     */
    public long packetsPerSecond(long size) {
        double pps = switch (units) {
            case MIBPS -> limit / size * 1_048_576;
            case GBPS -> limit / (size * 8.0) * 1_000_000_000;
            case PPS -> limit;
        };
        long whole = (long) pps;
        if (whole < 1) {
            throw new IllegalArgumentException("--rate_limit " + format(limit) + " " + units.letter()
                    + " is less than one message of " + size + " bytes per second");
        }
        return whole;
    }

    /**
     * The time between the starts of two bursts of the software limiter: {@code burst} messages at
     * {@link #packetsPerSecond}, in nanoseconds (at least 1).
     *
     * @param size  the message size
     * @param burst the messages of one burst
     */
    public long burstGapNanos(long size, int burst) {
        return Math.max(1, Math.round(1e9 * burst / packetsPerSecond(size)));
    }

    /**
     * The limit the device is asked for: HW in kb/s from the static rate in Gb/s (x 10^6; perftest
     * reads a HW limit as Gb/s whatever the units); PP as perftest computes it (MiB/s x 8 x 1024)
     * with the burst and typical packet size.
     */
    public RateLimit hardwareLimit() {
        double kbps = switch (type) {
            case PP -> limit * 8 * 1024;
            case HW -> limit * 1_000_000;
            default -> throw new IllegalStateException("not a hardware limit: " + type);
        };
        int rate = (int) Math.min(Integer.MAX_VALUE, Math.max(1, Math.round(kbps)));
        return type == Type.PP ? new RateLimit(rate, burstSize, typicalPacketSize) : new RateLimit(rate, 0, 0);
    }

    /** The limit as the options spell it, e.g. {@code --rate_limit 2.5 --rate_units g}. */
    public String describe() {
        return "--rate_limit " + format(limit) + " --rate_units " + units.letter() + " --rate_limit_type " + type;
    }

    private static String format(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    /**
     * The group's parameters for --json/--csv (perftest's JSON has none of them): the limit as
     * given (null without one), its units' letter, the limiter asked for (NONE, SW, HW, PP; a
     * refused HW limit falls back to SW at run time, with a warning), the burst and packet sizes.
     */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("rate_limit", limit > 0 ? limit : null);
        p.put("rate_units", units.letter());
        p.put("rate_limit_type", type.name());
        p.put("burst_size", burstSize);
        p.put("typical_pkt_size", typicalPacketSize);
        return p;
    }
}
