// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.needs;
import static dev.jrdma.tools.UsageErrors.optional;
import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.RateSettings.Type;
import dev.jrdma.tools.perftest.RateSettings.Units;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * perftest's rate limiter (its usage() offers it on the bandwidth tests), with its names, units
 * and rules (force_dependecies): a limit without a type asks the device (HW) and falls back to
 * the software limiter when the device refuses; an explicit HW or PP type fails then.
 */
final class RateOptions {
    @Option(names = "--rate_limit", paramLabel = "RATE",
            description = "Limit the rate of sent messages to RATE --rate_units (default unit: Gb/s). Without "
                    + "--rate_limit_type the device is asked (HW: RATE must then be a static rate in Gb/s, as in "
                    + "perftest) and, where it refuses, the software limiter paces at RATE --rate_units.")
    String rateLimit;

    @Option(names = "--rate_units", paramLabel = "UNITS",
            description = "Units of --rate_limit: M (MiB/s), g (Gb/s) or p (messages per second; not with HW) "
                    + "(default: g).")
    String rateUnits;

    @Option(names = "--rate_limit_type", paramLabel = "TYPE",
            description = "SW: the sender paces its posts in bursts of --burst_size; HW: the device limits each QP "
                    + "(ibv_modify_qp_rate_limit) to a static rate in Gb/s (2.5, 5, 10, ... 600, as perftest), an "
                    + "error where it refuses; PP: packet pacing, as HW with --burst_size bytes and "
                    + "--typical_pkt_size, --rate_units M only.")
    String rateLimitType;

    @Option(names = "--burst_size", paramLabel = "N",
            description = "Messages per burst of the software limiter (default: the TX depth); PP: the largest "
                    + "burst in bytes. Needs a rate limiter.")
    Integer burstSize;

    @Option(names = "--typical_pkt_size", paramLabel = "BYTES",
            description = "Typical packet size, 0-65535, for packet pacing (PP) only.")
    Integer typicalPacketSize;

    /**
     * The validated settings.
     *
     * @param spec          the command, for usage errors
     * @param kind          the test
     * @param bidirectional -b
     * @throws ParameterException naming the option on invalid input
     */
    RateSettings resolve(CommandSpec spec, TestKind kind, boolean bidirectional) {
        Units units = Units.GBPS;
        if (rateUnits != null) {
            units = Units.ofLetter(rateUnits);
            if (units == null) {
                throw usage(spec, "option '--rate_units': must be M, g or p, got '" + rateUnits + "'");
            }
        }
        double limit = 0;
        if (rateLimit != null) {
            try {
                limit = Double.parseDouble(rateLimit);
            } catch (NumberFormatException e) {
                limit = Double.NaN;
            }
            if (!(limit > 0) || Double.isInfinite(limit)) {
                throw usage(spec, "option '--rate_limit': must be a positive number, got '" + rateLimit + "'");
            }
        }
        Type type = Type.NONE;
        if (rateLimitType != null) {
            try {
                type = Type.valueOf(rateLimitType);
            } catch (IllegalArgumentException e) {
                type = Type.NONE;
            }
            if (type == Type.NONE) {
                throw usage(spec, "option '--rate_limit_type': must be SW, HW or PP, got '" + rateLimitType + "'");
            }
            if (rateLimit == null) {
                throw needs(spec, "'--rate_limit_type'", "--rate_limit");
            }
        } else if (rateLimit != null) {
            type = Type.HW;   // perftest: "if not specified, choose HW rate limiter as default"
        }
        int burst = 0;
        if (burstSize != null) {
            if (burstSize < 0) {
                throw usage(spec, "option '--burst_size': must not be negative, got " + burstSize);
            }
            if (burstSize > 0 && type == Type.NONE) {
                throw needs(spec, "'--burst_size'", "a rate limiter (--rate_limit)");
            }
            burst = burstSize;
        }
        int typical = optional(spec, "'--typical_pkt_size'", typicalPacketSize, 0, 0xFFFF, 0);
        if (typical > 0 && type != Type.PP) {
            throw usage(spec, "option '--typical_pkt_size': only the PP rate limiter takes it");
        }
        switch (type) {
            case SW -> {
                if (kind.verb() == Verb.ATOMIC || (kind.verb() == Verb.SEND && bidirectional)) {
                    throw usage(spec, "option '--rate_limit_type': SW cannot pace " + (kind.verb() == Verb.ATOMIC
                            ? "atomic tests" : "bidirectional send tests") + " (as in perftest)");
                }
            }
            case HW -> {
                // perftest (get_gbps_str_by_ibv_rate) takes a HW limit as one of the static rates, in Gb/s
                // whatever --rate_units says, and compares the text as given.
                if (!STATIC_RATES_GBPS.contains(rateLimit)) {
                    throw usage(spec, "option '--rate_limit': a HW rate limit must be a static rate in Gb/s ("
                            + String.join(", ", STATIC_RATES_GBPS) + "), got '" + rateLimit + "'"
                            + (rateLimitType == null ? " (or give --rate_limit_type SW)" : ""));
                }
                if (units == Units.PPS) {
                    throw usage(spec, "option '--rate_units': p (messages per second) is not available with a HW "
                            + "rate limit");
                }
            }
            case PP -> {
                if (units != Units.MIBPS) {
                    throw usage(spec, "option '--rate_units': packet pacing (PP) takes M (MiB/s) only");
                }
            }
            case NONE -> {
            }
        }
        if (type == Type.NONE) {
            return RateSettings.DEFAULT;
        }
        return new RateSettings(type, rateLimitType != null, limit, units, burst, typical);
    }

    /** perftest's RATE_VALUES (26.04): the ibv_rate values a HW limit may take, as it spells them. */
    static final java.util.List<String> STATIC_RATES_GBPS = java.util.List.of("2.5", "5", "10", "14", "20", "25",
            "28", "30", "40", "50", "56", "60", "80", "100", "112", "120", "168", "200", "300", "400", "600");
}
