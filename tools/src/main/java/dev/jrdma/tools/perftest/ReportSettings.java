// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Reports: -C, -U, -W, --cpu_util, --report-both, --report-per-port, -f, -H, --out_json and --out_json_file.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record ReportSettings() {
    /** None of the group's options given. */
    public static final ReportSettings DEFAULT = new ReportSettings();
}
