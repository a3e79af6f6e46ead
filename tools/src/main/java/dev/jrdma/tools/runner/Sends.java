// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.PreparedExtendedSend;
import dev.jrdma.PreparedSend;
import dev.jrdma.SendOpcode;
import dev.jrdma.WorkCompletion;
import dev.jrdma.tools.perftest.BandwidthMath;
import dev.jrdma.tools.perftest.BwReportData;

/**
 * The sending side of a bandwidth loop: how messages are posted to keep each QP up to tx-depth
 * outstanding, which are signalled, and how a completion is accounted. A count (-n) and a
 * window (-D) post differently, as jrdma did before they shared a loop: a count signals every
 * cq-mod-th message and each QP's last and times them for the peak; a window posts whole
 * groups of cq-mod so that each completion stands for cq-mod messages. Each QP's request is
 * prepared once (checked for its QP), as perftest builds its work requests before the loop;
 * {@link #close()} frees them. With -l each post is a list of that many messages
 * ({@link SendPoster}), every cq-mod-th signalled, counted per list.
 */
abstract sealed class Sends implements AutoCloseable {
    final Side side;
    /** One poster per QP, in an array: a List costs a size check and two casts per message. */
    final SendPoster[] reqs;
    final int cqMod;
    final int tx;
    /** -l: messages per post. */
    final int list;
    /** --rate_limit_type SW: the burst schedule; null without it. */
    final SoftwareRateLimiter limiter;

    private Sends(Side side, long size, SendOpcode opcode) {
        this.side = side;
        int n = side.qps.size();
        cqMod = side.s.cqMod();
        tx = side.s.txDepth();
        list = side.s.posting().postList();
        reqs = new SendPoster[n];
        limiter = SoftwareRateLimiter.of(side.rate, size, tx);
        try {
            for (int i = 0; i < n; i++) {
                reqs[i] = SendPoster.of(side, i, size, opcode, list, cqMod, false);   // wr_id: the QP
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Frees the prepared requests. */
    @Override
    public void close() {
        for (SendPoster r : reqs) {
            if (r != null) {
                r.close();
            }
        }
    }

    static Sends of(Side side, long size, SendOpcode opcode, StopRule rule) {
        return rule.timed() ? new Grouped(side, size, opcode) : new Counted(side, size, opcode, rule.iterations());
    }

    /** Starts the clock of a count with -N, and the rate limiter's schedule. */
    void start() {
        if (limiter != null) {
            limiter.start(System.nanoTime());
        }
    }

    /** Tops every QP up to tx-depth outstanding messages. */
    abstract void post();

    /** Accounts a successful completion; the messages it stands for. */
    abstract long complete(WorkCompletion c);

    /** Whether every message has completed (never for a window). */
    abstract boolean allCompleted();

    /** The messages completed so far (count mode). */
    long completed() {
        return 0;
    }

    /** The messages of the run (count mode). */
    long total() {
        return 0;
    }

    /** The count's report (count mode). */
    BwReportData report(long size) {
        throw new IllegalStateException("a window's report comes from its count");
    }

    /**
     * Count mode: per QP up to tx-depth messages outstanding, every cq-mod-th and each QP's last
     * signalled (a list's requests are signalled as it was built: -n is a multiple of -l). The wr_id is the QP, set once, as perftest's: a QP's completions arrive in
     * order, so each stands for cq-mod messages except the last, which stands for the rest.
     * Each post and completion is timed for the peak, with {@link PostClock} as perftest with its
     * cycle counter; with -N only the first post and the last completion.
     */
    static final class Counted extends Sends {
        private final int iters;
        private final int total;
        private final boolean peak;
        private final int[] scnt;
        private final int[] ccnt;
        private final long[] posted;
        private final long[] completed;
        private int totscnt;
        private int totccnt;
        /** The post clock at start(): posts and completions are stamped with PostClock, converted in report(). */
        private PostClock.Mark clockStart;

        Counted(Side side, long size, SendOpcode opcode, long iterations) {
            super(side, size, opcode);
            int n = reqs.length;
            iters = Math.toIntExact(iterations);
            total = iters * n;
            peak = !side.s.noPeak();
            scnt = new int[n];
            ccnt = new int[n];
            posted = new long[total];
            completed = new long[total];
        }

        @Override
        void start() {
            super.start();
            clockStart = PostClock.Mark.now();
            if (!peak) {
                posted[0] = PostClock.now();
            }
        }

        // The per-message work is the part perftest's loop has too (the signal decision, the
        // post); counters live in locals for the QP's turn, since ccnt cannot change during it.
        @Override
        void post() {
            SendPoster[] reqs = this.reqs;
            int list = this.list;
            for (int q = 0; q < reqs.length; q++) {
                int first = scnt[q];
                int limit = Math.min(iters, ccnt[q] + tx);
                if (list > 1) {
                    limit = first + (limit - first) / list * list;   // whole lists only
                }
                if (first >= limit) {
                    continue;
                }
                if (limiter != null) {
                    limit = Math.min(limit, first + limiter.allowance(System.nanoTime()));
                    if (first >= limit) {
                        continue;
                    }
                    limiter.posted(limit - first);
                }
                SendPoster r = reqs[q];
                PreparedSend single = list == 1 ? r.prepared() : null;
                PreparedExtendedSend extended = list == 1 ? r.preparedExtended() : null;
                if (single != null || extended != null) {
                    if (single != null) {
                        postSingles(single, first, limit);
                    } else {
                        postExtendedSingles(extended, first, limit);
                    }
                    r.addPosts(limit - first);
                    scnt[q] = limit;
                    totscnt += limit - first;
                    continue;
                }
                int last = iters - 1;
                int t = totscnt;
                for (int idx = first; idx < limit; idx += list) {
                    if (list == 1) {
                        r.signaled(idx % cqMod == cqMod - 1 || idx == last);
                    }
                    if (peak) {
                        long now = PostClock.now();
                        for (int k = 0; k < list; k++) {
                            posted[t++] = now;
                        }
                    }
                    r.post();
                }
                scnt[q] = limit;
                totscnt += limit - first;
            }
        }

        /**
         * Messages {@code first} to {@code limit} of one QP, one request per post with
         * {@code ibv_post_send}: the {@link PreparedSend} posted here, as the count-mode latency
         * loops post theirs, rather than through {@link SendPoster}'s dispatch on its class (a
         * class check per call, two calls per message); the caller counts the posts. A method of
         * its own, so that the per-message loop keeps its invariants in locals
         * (research/notes/2026-11-28-latency-loop-instructions.md).
         */
        private void postSingles(PreparedSend send, int first, int limit) {
            int cqMod = this.cqMod;
            int last = iters - 1;
            boolean peak = this.peak;
            long[] posted = this.posted;
            int t = totscnt;
            for (int idx = first; idx < limit; idx++) {
                send.signaled(idx % cqMod == cqMod - 1 || idx == last);
                if (peak) {
                    posted[t++] = PostClock.now();
                }
                send.post();
            }
        }

        /** {@link #postSingles} through the extended post API: written out, so each loop's post binds statically. */
        private void postExtendedSingles(PreparedExtendedSend send, int first, int limit) {
            int cqMod = this.cqMod;
            int last = iters - 1;
            boolean peak = this.peak;
            long[] posted = this.posted;
            int t = totscnt;
            for (int idx = first; idx < limit; idx++) {
                send.signaled(idx % cqMod == cqMod - 1 || idx == last);
                if (peak) {
                    posted[t++] = PostClock.now();
                }
                send.post();
            }
        }

        @Override
        long complete(WorkCompletion c) {
            int q = (int) c.wrId();
            int messages = Math.min(cqMod, iters - ccnt[q]);
            ccnt[q] += messages;
            totccnt += messages;
            if (peak) {
                completed[totccnt - 1] = PostClock.now();
            }
            return messages;
        }

        @Override
        boolean allCompleted() {
            return totccnt == total;
        }

        @Override
        long completed() {
            return totccnt;
        }

        @Override
        long total() {
            return total;
        }

        @Override
        BwReportData report(long size) {
            if (!peak) {
                completed[0] = PostClock.now();
            }
            PostClock.Mark end = PostClock.Mark.now();
            PostClock.toNanos(posted, clockStart, end);
            PostClock.toNanos(completed, clockStart, end);
            return BandwidthMath.report(size, total, posted, completed, cqMod, 1, !peak, side.s.reportGbits());
        }
    }

    /**
     * Window mode: each QP is topped up to tx-depth outstanding in whole groups of cq-mod
     * messages, the last of each group signalled, so that a completion stands for cq-mod
     * messages.
     */
    static final class Grouped extends Sends {
        private final long[] scnt;
        private final long[] ccnt;

        Grouped(Side side, long size, SendOpcode opcode) {
            super(side, size, opcode);
            scnt = new long[reqs.length];
            ccnt = new long[reqs.length];
        }

        @Override
        void post() {
            if (list > 1) {
                postLists();
                return;
            }
            for (int q = 0; q < reqs.length; q++) {
                while (scnt[q] - ccnt[q] + cqMod <= tx) {
                    if (limiter != null) {
                        if (limiter.allowance(System.nanoTime()) == 0) {
                            break;
                        }
                        limiter.posted(cqMod);
                    }
                    for (int k = 0; k < cqMod; k++) {
                        reqs[q].signaled(k == cqMod - 1).post();
                    }
                    scnt[q] += cqMod;
                }
            }
        }

        /** -l: whole lists, each with its cq-mod-th requests signalled. */
        private void postLists() {
            for (int q = 0; q < reqs.length; q++) {
                while (scnt[q] - ccnt[q] + list <= tx) {
                    reqs[q].post();
                    scnt[q] += list;
                }
            }
        }

        @Override
        long complete(WorkCompletion c) {
            ccnt[(int) c.wrId()] += cqMod;
            return cqMod;
        }

        @Override
        boolean allCompleted() {
            return false;
        }
    }
}
