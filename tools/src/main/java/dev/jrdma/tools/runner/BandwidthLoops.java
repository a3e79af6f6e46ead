// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.PreparedReceive;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletions;
import dev.jrdma.tools.perftest.BandwidthMath;
import dev.jrdma.tools.perftest.BwReportData;
import java.io.IOException;

/**
 * perftest's bandwidth loops ({@code run_iter_bw}, {@code run_iter_bw_server},
 * {@code run_iter_bi}), one per role, each driven by a {@link StopRule}: -n messages per QP,
 * reported over the post and completion times, or -D's window, reported as the messages that
 * completed inside it over its length. Outstanding messages at a window's end are left to the
 * QP's teardown, as perftest does.
 */
final class BandwidthLoops {
    private BandwidthLoops() {
    }

    /**
     * run_iter_bw, the sending side (the client; both sides with -b for write/read/atomic): per
     * QP keep up to tx-depth messages outstanding, signal every cq-mod-th (and in count mode the
     * last); record post and completion times for the peak.
     */
    static BwReportData client(Side side, long size, StopRule rule) throws IOException {
        Completions c = side.completions;
        WorkCompletions batch = c.batch;
        try (Sends sends = Sends.of(side, size, side.opcode(), rule)) {
            String what = side.operationName();
            long deadline = 0;
            int idle = 0;
            rule.start(System.nanoTime());
            sends.start();
            while (!sends.allCompleted()) {
                sends.post();
                int ne = c.pollBatch(side.sendCq);
                long messages = 0;
                for (int i = 0; i < ne; i++) {
                    messages += sends.complete(Completions.succeeded(batch.get(i), what));
                }
                if (rule.timed() && !rule.completed(System.nanoTime(), messages)) {
                    break;
                }
                if (ne > 0) {
                    deadline = 0;
                    idle = 0;
                } else if (side.channel != null || (++idle & c.spinMask) == 0) {
                    deadline = c.checkDeadline(deadline, what);
                }
            }
            return rule.timed() ? windowReport(side, size, rule) : sends.report(size);
        }
    }

    /**
     * run_iter_bw_server: receive the messages, re-posting while more are due; the clock starts
     * at the first receive (perftest's set_on_first_rx_packet); no peak.
     */
    static BwReportData sendServer(Side side, long size, StopRule rule) throws IOException {
        Completions c = side.completions;
        WorkCompletions batch = c.batch;
        // --connectionless's soak: senders to the group come and go; a quiet group is a row of zeros,
        // not a stall (its warm-up twins, counting, still time out on a lost message).
        boolean stalls = rule.soak() == null || !side.s.addressing().connectionless();
        try (Receives recvs = new Receives(side, size, rule)) {
            long first = 0;
            long deadline = 0;
            int idle = 0;
            while (!recvs.allReceived()) {
                int ne = c.pollBatch(side.recvCq);
                if (ne > 0) {
                    if (first == 0) {
                        first = System.nanoTime();
                        rule.start(first);
                    }
                    deadline = 0;
                    idle = 0;
                    for (int i = 0; i < ne; i++) {
                        recvs.complete(Completions.succeeded(batch.get(i), "receive"));
                    }
                } else if (stalls && (side.channel != null || (++idle & c.spinMask) == 0)) {
                    deadline = c.checkDeadline(deadline, "receive");
                }
                if (rule.timed() && rule.started() && !rule.completed(System.nanoTime(), ne)) {
                    break;
                }
            }
            if (rule.timed()) {
                return windowReport(side, size, rule);
            }
            long end = System.nanoTime();
            return BandwidthMath.report(size, recvs.total, new long[] {first}, new long[] {end}, 1, 1, true,
                    side.s.reportGbits());
        }
    }

    /**
     * run_iter_bi for send_bw -b: each side sends (as {@link #client}) while it receives and
     * re-posts the peer's messages. In count mode the run ends when both are done and the report
     * is over the sends, as perftest's; in window mode the client starts its clock and its sends
     * at once, the server at its first receive, and the window counts both directions (send
     * completions x cq-mod plus receives), as perftest's row does.
     */
    static BwReportData sendBidirectional(Side side, long size, StopRule rule) throws IOException {
        Completions c = side.completions;
        WorkCompletions batch = c.batch;
        try (Sends sends = Sends.of(side, size, side.opcode(), rule);
             Receives recvs = new Receives(side, size, rule)) {
            boolean armed = false;
            long timeoutNanos = c.timeoutNanos();
            long deadline = System.nanoTime() + timeoutNanos;
            if (side.s.testClient()) {
                rule.start(System.nanoTime());
            }
            sends.start();
            while (!sends.allCompleted() || !recvs.allReceived()) {
                if (rule.started()) {
                    sends.post();
                }
                int ne = sends.allCompleted() ? 0 : c.poll(side.sendCq);
                long messages = 0;
                for (int i = 0; i < ne; i++) {
                    messages += sends.complete(Completions.succeeded(batch.get(i), "send"));
                }
                int nr = recvs.allReceived() ? 0 : c.poll(side.recvCq);
                long now = System.nanoTime();
                if (nr > 0) {
                    rule.start(now);   // the server's window starts at its first receive
                }
                for (int i = 0; i < nr; i++) {
                    recvs.complete(Completions.succeeded(batch.get(i), "receive"));
                }
                if (rule.timed() && !rule.completed(now, messages + nr)) {
                    break;
                }
                if (ne > 0 || nr > 0) {
                    deadline = now + timeoutNanos;
                    armed = false;
                } else {
                    if (now - deadline > 0) {
                        throw rule.timed()
                                ? new RdmaTimeoutException("no completion", "the test's completion queues", c.timeout(),
                                        Completions.STALLED)
                                : new RdmaTimeoutException("no " + (sends.allCompleted() ? "receive" : "send")
                                        + " completion", "the test's completion queues", c.timeout(), Completions.STALLED
                                        + " (sent " + sends.completed() + " of " + sends.total() + ", received "
                                        + recvs.received + " of " + recvs.total + ")");
                    }
                    armed = c.awaitEither(armed);
                }
            }
            return rule.timed() ? windowReport(side, size, rule) : sends.report(size);
        }
    }

    private static BwReportData windowReport(Side side, long size, StopRule rule) {
        if (rule.soak() != null) {
            return rule.soak().last();   // --run_infinitely: its rows were printed as each period ended
        }
        StopRule.Window w = rule.window();
        if (rule.counted() == 0) {
            throw new IllegalStateException("no message completed in the " + (w.length() / 1_000_000) + " ms sample "
                    + "window of -D " + side.s.durationSeconds() + ": the device or the peer is too slow for this duration");
        }
        return BandwidthMath.report(size, rule.counted(), new long[] {w.sampleStart()}, new long[] {w.sampleEnd()},
                1, 1, true, side.s.reportGbits());
    }

    /**
     * The receiving side: postReceives put rx-depth receives on each QP before the run; every
     * completion re-posts one, prepared once per QP, while the QP still expects more than it has
     * posted (always, in window mode). With --recv_post_list a QP re-posts a whole list once as
     * many of its receives have completed; with --use-srq its receives go to the SRQ (the wr_id
     * names the QP that posted them, as perftest's).
     */
    private static final class Receives implements AutoCloseable {
        private final Side side;
        private final PreparedReceive[] reqs;
        private final long iters;
        private final long total;
        private final long[] posted;
        /** --recv_post_list: per QP the receives completed and not re-posted yet. */
        private final int[] unused;
        private final int list;
        private final PostResources counts;
        private long received;

        Receives(Side side, long size, StopRule rule) {
            this.side = side;
            reqs = side.preparedReceives(size);
            iters = rule.iterations();
            total = rule.timed() ? Long.MAX_VALUE : iters * reqs.length;
            posted = new long[reqs.length];
            java.util.Arrays.fill(posted, side.post.receivesPostedPerQp());
            unused = new int[reqs.length];
            list = reqs[0].size();
            counts = side.post;
        }

        /** Accounts a successful receive completion (wr_id: the QP). */
        void complete(WorkCompletion c) throws IOException {
            side.checkImmediate(c);
            int q = (int) c.wrId();
            received++;
            if (++unused[q] >= list && posted[q] + list <= iters) {
                reqs[q].post();
                counts.receivesPosted(list);
                posted[q] += list;
                unused[q] -= list;
            }
        }

        boolean allReceived() {
            return received == total;
        }

        @Override
        public void close() {
            for (PreparedReceive r : reqs) {
                r.close();
            }
        }
    }
}
