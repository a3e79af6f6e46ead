// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.optional;
import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.PostSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.TestKind.Connection;
import dev.jrdma.tools.perftest.Verb;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The posting and queue options (perftest's names and meanings, per test as its usage() offers
 * them) and their dependencies on the other options, as perftest's force_dependecies applies
 * them: {@link Common} on every test, {@link Lists} on the BW tests, {@link Srq} on the send
 * tests. {@link #resolve} turns them into {@link PostSettings}.
 */
final class PostOptions {
    private PostOptions() {
    }

    /** Every test: --cqe_poll, --use_old_post_send, --no_lock. */
    static final class Common {
        @Option(names = "--cqe_poll", paramLabel = "N",
                description = "Completions polled per call by the BW loops, 1-65535 (default: 16; turns dynamic "
                        + "polling off). The latency loops poll one at a time, as perftest's.")
        Integer cqePoll;

        @Option(names = "--use_old_post_send",
                description = "Post with ibv_post_send. By default jrdma posts through the extended post API "
                        + "(ibv_wr_*) on the devices perftest does (mlx5, BlueField, EFA, HNS), else, as on rxe, "
                        + "and with -R, with ibv_post_send.")
        boolean oldPostSend;

        @Option(names = "--no_lock",
                description = "No lock in posting: the QPs (and the SRQ) in a parent domain over a thread domain. "
                        + "Where the device has no thread domains (e.g. rxe) the run fails (exit 1) naming the "
                        + "device.")
        boolean noLock;
    }

    /** BW tests: -l, --recv_post_list, --mr_per_qp, --disable_dynamic_polling. */
    static final class Lists {
        @Option(names = {"-l", "--post_list"}, paramLabel = "N",
                description = "Post lists of N send work requests (chained, one post) instead of single posts; "
                        + "-n must be a multiple of N, -Q defaults to N (and must divide it).")
        Integer postList;

        @Option(names = "--recv_post_list", paramLabel = "N",
                description = "Post lists of N receive work requests instead of single posts; -n must be a "
                        + "multiple of N.")
        Integer recvPostList;

        @Option(names = "--mr_per_qp", description = "Create a buffer and memory region for each QP.")
        boolean mrPerQp;

        @Option(names = "--disable_dynamic_polling",
                description = "Disable dynamic CQE polling adaptation (default enabled: the poll size adapts "
                        + "between 16 and 1024 at the start of a run of 3000 or more iterations).")
        boolean disableDynamicPolling;
    }

    /** Send tests: --use-srq. */
    static final class Srq {
        @Option(names = "--use-srq",
                description = "Use a shared receive queue on the side(s) that receive; --rx-depth is its size.")
        boolean useSrq;
    }

    /**
     * The group's settings; validates the values alone (ranges).
     *
     * @param durationRun   -D given
     * @param bidirectional -b given
     */
    static PostSettings resolve(CommandSpec spec, TestKind kind, Common common, Lists lists, Srq srq, long iters,
                                boolean durationRun, boolean bidirectional) {
        int postList = 1;
        int recvPostList = 1;
        boolean mrPerQp = false;
        boolean dynamicAsked = true;
        if (lists != null) {
            postList = optional(spec, "'--post_list' (-l)", lists.postList, 1, 1 << 16, 1);
            recvPostList = optional(spec, "'--recv_post_list'", lists.recvPostList, 1, 1 << 16, 1);
            mrPerQp = lists.mrPerQp;
            dynamicAsked = !lists.disableDynamicPolling;
        }
        int cqePoll = optional(spec, "'--cqe_poll'", common.cqePoll, 1, 65_535, PostSettings.DEFAULT_CQE_POLL);
        if (common.cqePoll != null) {
            dynamicAsked = false;   // perftest: --cqe_poll fixes the poll size
        }
        boolean dynamic = PostSettings.resolveDynamic(dynamicAsked, kind, iters, durationRun, bidirectional);
        return new PostSettings(postList, recvPostList, srq != null && srq.useSrq, cqePoll, dynamic,
                common.oldPostSend, common.noLock, mrPerQp);
    }

    /**
     * The CQ moderation with a post list: the list's size unless -Q was given, which must then
     * divide it (each list's signalled requests are fixed when it is built).
     */
    static int cqMod(CommandSpec spec, PostSettings p, int cqMod, boolean cqModGiven) {
        if (p.postList() == 1) {
            return cqMod;
        }
        if (!cqModGiven) {
            return p.postList();   // perftest: "Post List requested - CQ moderation will be the size of the post list"
        }
        if (p.postList() % cqMod != 0) {
            throw usage(spec, "option '--post_list' (-l): the post list size must be a multiple of "
                    + "--cq-mod (-Q), got -l " + p.postList() + " and -Q " + cqMod);
        }
        return cqMod;
    }

    /** perftest's rx depth with an SRQ on UC or UD: at least MIN_SRQ_UD_RX_DEPTH for counted runs of that few. */
    static int rxDepth(PostSettings p, Connection connection, long iters, boolean durationRun, int rxDepth) {
        if (p.useSrq() && !durationRun && connection != Connection.RC && iters <= PostSettings.MIN_SRQ_UD_RX_DEPTH) {
            return PostSettings.MIN_SRQ_UD_RX_DEPTH;
        }
        return rxDepth;
    }

    /** The dependencies between the group and the other options, as perftest checks them. */
    static void check(CommandSpec spec, PostSettings p, TestKind kind, long iters, boolean durationRun, int txDepth,
                      int rxDepth, int qps) {
        if (p.postList() > 1) {
            if (!durationRun && iters % p.postList() != 0) {
                throw usage(spec, "option '--post_list' (-l): the number of iterations (-n " + iters
                        + ") must be a multiple of the post list size " + p.postList());
            }
            if (p.postList() > txDepth) {
                throw usage(spec, "option '--post_list' (-l): a post list of " + p.postList()
                        + " does not fit the send queue (--tx-depth " + txDepth + ")");
            }
        }
        if (p.recvPostList() > 1) {
            if (!durationRun && iters % p.recvPostList() != 0) {
                throw usage(spec, "option '--recv_post_list': the number of iterations (-n " + iters
                        + ") must be a multiple of the receive post list size " + p.recvPostList());
            }
            if (kind.verb() == Verb.SEND && p.recvPostList() > rxDepth / (p.useSrq() ? qps : 1)) {
                throw usage(spec, "option '--recv_post_list': a receive post list of "
                        + p.recvPostList() + " does not fit the receive queue (--rx-depth " + rxDepth
                        + (p.useSrq() ? " shared by " + qps + " QPs" : "") + ")");
            }
        }
        if (p.useSrq() && qps > rxDepth) {
            // perftest: "Using SRQ depth should be greater than number of QPs."
            throw usage(spec, "option '--use-srq': the SRQ depth (--rx-depth " + rxDepth
                    + ") must be at least the number of QPs (-q " + qps + ")");
        }
    }
}
