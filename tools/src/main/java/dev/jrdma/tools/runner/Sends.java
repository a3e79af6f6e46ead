// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.tools.perftest.BandwidthMath;
import dev.jrdma.tools.perftest.BwReportData;

/**
 * The sending side of a bandwidth loop: how messages are posted to keep each QP up to tx-depth
 * outstanding, which are signalled, and how a completion is accounted. A count (-n) and a
 * window (-D) post differently, as jrdma did before they shared a loop: a count signals every
 * cq-mod-th message and each QP's last and times them for the peak; a window posts whole
 * groups of cq-mod so that each completion stands for cq-mod messages.
 */
abstract sealed class Sends {
    final Side side;
    final SendRequest[] reqs;
    final int cqMod;
    final int tx;

    private Sends(Side side, long size, SendOpcode opcode) {
        this.side = side;
        int n = side.qps.size();
        cqMod = side.s.cqMod();
        tx = side.s.txDepth();
        reqs = new SendRequest[n];
        for (int i = 0; i < n; i++) {
            reqs[i] = side.sendRequest(i, size, opcode);
        }
    }

    static Sends of(Side side, long size, SendOpcode opcode, StopRule rule) {
        return rule.timed() ? new Grouped(side, size, opcode) : new Counted(side, size, opcode, rule.iterations());
    }

    /** Starts the clock of a count with -N. */
    void start() {
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
     * signalled. The wr_id carries the QP (high 32 bits) and the message's 1-based index, so that
     * one completion accounts for the unsignalled messages before it. Each post and completion is
     * timed for the peak; with -N only the first post and the last completion.
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
            if (!peak) {
                posted[0] = System.nanoTime();
            }
        }

        @Override
        void post() {
            for (int q = 0; q < reqs.length; q++) {
                while (scnt[q] < iters && scnt[q] - ccnt[q] + 1 <= tx) {
                    int idx = scnt[q];
                    reqs[q].signaled(idx % cqMod == cqMod - 1 || idx == iters - 1).wrId(((long) q << 32) | (idx + 1));
                    if (peak) {
                        posted[totscnt] = System.nanoTime();
                    }
                    side.qps.get(q).post(reqs[q]);
                    scnt[q]++;
                    totscnt++;
                }
            }
        }

        @Override
        long complete(WorkCompletion c) {
            int q = (int) (c.wrId() >>> 32);
            int done = (int) c.wrId();
            int messages = done - ccnt[q];
            totccnt += messages;
            ccnt[q] = done;
            if (peak) {
                completed[totccnt - 1] = System.nanoTime();
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
                completed[0] = System.nanoTime();
            }
            return BandwidthMath.report(size, total, posted, completed, cqMod, 1, !peak, side.s.reportGbits());
        }
    }

    /**
     * Window mode: each QP is topped up to tx-depth outstanding in whole groups of cq-mod
     * messages, the last of each group signalled, so that a completion stands for cq-mod
     * messages (wr_id: the QP).
     */
    static final class Grouped extends Sends {
        private final long[] scnt;
        private final long[] ccnt;

        Grouped(Side side, long size, SendOpcode opcode) {
            super(side, size, opcode);
            for (int i = 0; i < reqs.length; i++) {
                reqs[i].wrId(i);
            }
            scnt = new long[reqs.length];
            ccnt = new long[reqs.length];
        }

        @Override
        void post() {
            for (int q = 0; q < reqs.length; q++) {
                while (scnt[q] - ccnt[q] + cqMod <= tx) {
                    for (int k = 0; k < cqMod; k++) {
                        reqs[q].signaled(k == cqMod - 1);
                        side.qps.get(q).post(reqs[q]);
                    }
                    scnt[q] += cqMod;
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
