// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Run control: --run_infinitely, -w, -y, --latency_gap, --perform_warm_up, --wait_destroy, --reversed.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record RunSettings() {
    /** None of the group's options given. */
    public static final RunSettings DEFAULT = new RunSettings();
}
