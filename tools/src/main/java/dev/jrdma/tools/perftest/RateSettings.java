// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * The rate limiter: --rate_limit, --rate_units, --rate_limit_type, --burst_size, --typical_pkt_size.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record RateSettings() {
    /** None of the group's options given. */
    public static final RateSettings DEFAULT = new RateSettings();
}
