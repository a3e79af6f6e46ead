// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Other verbs: --write_with_imm, --send_with_imm, --data_validation (and -e on the atomic tests, which is EventOptions').
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record OperationSettings() {
    /** None of the group's options given. */
    public static final OperationSettings DEFAULT = new OperationSettings();
}
