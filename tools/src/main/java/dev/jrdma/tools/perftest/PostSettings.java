// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Posting and queues: -l, --recv_post_list, --use-srq, --cqe_poll, --disable_dynamic_polling, --use_old_post_send, --no_lock, --mr_per_qp.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record PostSettings() {
    /** None of the group's options given. */
    public static final PostSettings DEFAULT = new PostSettings();
}
