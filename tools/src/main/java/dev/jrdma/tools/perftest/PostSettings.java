// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Posting and queues: -l, --recv_post_list, --use-srq, --cqe_poll, --disable_dynamic_polling, --use_old_post_send, --no_lock, --mr_per_qp.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 *
 * @param postList        -l: send work requests chained into one post (BW tests), 1 for single posts
 * @param recvPostList    --recv_post_list: receive work requests chained into one post (BW tests), 1 for single posts
 * @param useSrq          --use-srq: the sides that receive take their receives from one shared
 *                        receive queue (send tests); perftest sends no SRQ number for it (the key
 *                        message's SRQN stays 0: only XRC and DC fill it), so the wire is unchanged
 * @param cqePoll         --cqe_poll: completions polled per call, 1-65535 ({@link #DEFAULT_CQE_POLL}
 *                        when not given, perftest's CTX_POLL_BATCH)
 * @param dynamicPolling  whether the BW loops adapt the poll size to what arrives (perftest 26.04's
 *                        dynamic CQE polling); off with --disable_dynamic_polling or --cqe_poll,
 *                        and where perftest turns it off (see {@link #resolveDynamic})
 * @param oldPostSend     --use_old_post_send: post with ibv_post_send; otherwise with the extended
 *                        post API (ibv_wr_*) on the devices perftest uses it on (not rxe)
 * @param noLock          --no_lock: the QPs, CQs and SRQ in a parent domain over a thread domain
 *                        (lock-free posting and polling), where the device offers thread domains
 * @param mrPerQp         --mr_per_qp: one buffer and memory region per QP instead of one for all (BW tests)
 */
public record PostSettings(int postList, int recvPostList, boolean useSrq, int cqePoll, boolean dynamicPolling,
                           boolean oldPostSend, boolean noLock, boolean mrPerQp) {
    /** perftest's CTX_POLL_BATCH: completions polled per call unless --cqe_poll says otherwise. */
    public static final int DEFAULT_CQE_POLL = 16;
    /** perftest's dynamic polling bounds (init_dyn_poll_ctx): it starts at the largest. */
    public static final int DYNAMIC_MIN = 16;
    public static final int DYNAMIC_MAX = 1024;
    /** perftest's MIN_SRQ_UD_RX_DEPTH: the least rx depth of an SRQ with UC or UD. */
    public static final int MIN_SRQ_UD_RX_DEPTH = 100;

    /** None of the group's options given. */
    public static final PostSettings DEFAULT = new PostSettings(1, 1, false, DEFAULT_CQE_POLL, false, false, false, false);

    public PostSettings {
        if (postList < 1 || recvPostList < 1 || cqePoll < 1 || cqePoll > 65_535) {
            throw new IllegalArgumentException("post lists must be at least 1 and --cqe_poll 1-65535");
        }
    }

    /**
     * Whether dynamic polling runs, as perftest 26.04 decides: asked for (no
     * --disable_dynamic_polling and no --cqe_poll), in a BW test, and not for fewer than 3000
     * counted iterations or a bidirectional send test.
     */
    public static boolean resolveDynamic(boolean asked, TestKind kind, long iters, boolean durationRun,
                                         boolean bidirectional) {
        return asked && kind.bandwidth() && (durationRun || iters >= 3000)
                && !(bidirectional && kind.verb() == Verb.SEND);
    }

    /** The first poll size: the dynamic maximum while it adapts, else --cqe_poll. */
    public int initialPollSize() {
        return dynamicPolling ? DYNAMIC_MAX : cqePoll;
    }

    /** The capacity a poll batch needs. */
    public int pollCapacity() {
        return Math.max(cqePoll, dynamicPolling ? DYNAMIC_MAX : 0);
    }
}
