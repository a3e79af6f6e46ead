// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.CompletionQueue;
import dev.jrdma.PreparedExtendedSend;
import dev.jrdma.PreparedPoll;
import dev.jrdma.PreparedReceive;
import dev.jrdma.PreparedSend;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.SendOpcode;
import dev.jrdma.WaitStrategy;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * perftest's latency loops ({@code run_iter_lat_send}, {@code run_iter_lat_write},
 * {@code run_iter_lat}), one per test, each driven by a {@link StopRule}: -n iterations with
 * each post's time recorded, or -D's window with the iterations counted inside it. In window
 * mode a side whose peer ended first stops waiting at its own end, so waits are bounded by the
 * end as well as by the timeout. Each loop posts requests prepared once before the loop
 * ({@link SendPoster}: through the extended post API or a {@link dev.jrdma.PreparedSend};
 * {@link PreparedReceive}) and, in count mode without -e, polls through a {@link PreparedPoll}
 * per completion queue ({@link Completions#spin}), as perftest posts the structs it built
 * before its loop and polls into the {@code ibv_wc} it allocated there.
 */
final class LatencyLoops {
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** A -D write-lat side answers after its end until the peer is this long quiet (lingerForWriteLatency). */
    private static final long LINGER_QUIET_NANOS = 300_000_000L;
    /**
     * ... and for no longer than this: two lingering jrdma sides would answer each other forever,
     * and the two sides' windows start within a sync's latency of each other, far less than this.
     */
    private static final long LINGER_MAX_NANOS = 2_000_000_000L;
    /** How the linger waits between two looks at the peer's byte: a spin, as perftest's loop. */
    private static final WaitStrategy LINGER_IDLE = WaitStrategy.busySpin();

    private LatencyLoops() {
    }

    /**
     * run_iter_lat_send (and run_iter_lat_write_imm for --write_with_imm): the client sends first
     * (write_lat: the server); each side re-posts its receive while more are due.
     */
    static void send(Side side, long size, StopRule rule) throws IOException {
        Completions c = side.completions;
        long iters = rule.iterations();
        // The side that posts first: send_lat's client; with --write_with_imm write_lat's server.
        boolean client = side.s.client() != side.writeImmediate;
        int rxDepth = side.s.rxDepth();
        // Decided once: the plain busy-poll (-n, no -e), called directly (Completions.spins), and
        // whether receives must carry an immediate (--send_with_imm); no call for either otherwise.
        boolean spin = c.spins(rule);
        boolean immediate = side.withImmediate;
        CompletionQueue recvCq = side.recvCq;
        CompletionQueue sendCq = side.sendCq;
        // The posters, receives and polls are confined to this thread, which makes, uses and closes
        // them: no guard word on a post or a poll.
        try (SendPoster send = SendPoster.single(side, 0, size, side.opcode());
             PreparedReceive recv = side.post.prepareReceive(0, size);   // to the QP, or --use-srq's SRQ
             PreparedPoll recvPoll = PreparedPoll.ofConfined(recvCq);
             PreparedPoll sendPoll = PreparedPoll.ofConfined(sendCq)) {
            PreparedSend direct = send.prepared();
            PreparedExtendedSend extended = send.preparedExtended();
            if (spin && direct != null && !immediate && !rule.hasGap()) {
                sendCounted(side, rule, client, send, direct, recv, recvPoll, sendPoll);
                return;
            }
            if (spin && extended != null && !immediate && !rule.hasGap()) {
                sendCountedExtended(side, rule, client, send, extended, recv, recvPoll, sendPoll);
                return;
            }
            rule.start(System.nanoTime());
            int scnt = 0;
            int rcnt = 0;
            int reposted = 0;   // added to --json's counts after the loop: no call per iteration
            try {
                while (scnt < iters || rcnt < iters) {
                    if (rcnt < iters && !(scnt < 1 && client)) {
                        if (spin) {
                            c.spin(recvPoll, "receive");
                        } else if (!c.take(recvCq, "receive", rule)) {
                            break;
                        }
                        rcnt++;
                        if (immediate) {
                            side.checkImmediate(spin ? recvPoll.completion() : c.last());
                        }
                        if (rcnt + (long) rxDepth <= iters) {
                            recv.post();
                            reposted++;
                        }
                    }
                    if (scnt < iters) {
                        // perftest reads the clock just before the post; we read it just after, while the
                        // message is on its way, so a slow clock is off the round trip. Consecutive
                        // deltas - all the report uses - are the same period either way.
                        rule.beforePost();
                        send.post();
                        rule.posted(scnt++);
                        if (spin) {
                            c.spin(sendPoll, "send");
                        } else if (!c.take(sendCq, "send", rule) || !rule.completed()) {
                            break;
                        }
                    }
                }
            } finally {
                side.post.receivesPosted(reposted, reposted);
            }
        }
    }

    /**
     * {@link #send}'s loop in count mode without -e, --send_with_imm or --latency_gap, posting with
     * {@code ibv_post_send}: perftest's loop, with the prepared request posted here
     * (SendPoster.prepared) and every wait the plain busy-poll. A method of its own, so that C2
     * compiles only these paths into it: the other loop's posts and waits, never run here, would
     * still be inlined (the launchers name the posts for inlining, which inlines unreached calls
     * too) and grew the graph past C2's node budget, which left the status read out of line
     * (research/notes/2026-11-27-latency-loops-inlined.md).
     *
     * <p>Shaped for the fewest instructions per iteration, with the same checks
     * (research/notes/2026-11-28-latency-loop-instructions.md): the objects are null-checked once
     * before the loop, so that C2 neither tests them in every iteration nor peels a copy of each
     * wait's poll to hoist the test; the re-posted receives are counted after the loop; the post
     * is stamped with {@link PostClock} straight into the rule's array. (The client's first send
     * taken before the loop, a third inlined post and wait, left the method uncompiled under
     * perf-gate: not tried again.)
     */
    private static void sendCounted(Side side, StopRule rule, boolean client, SendPoster send, PreparedSend direct,
                                    PreparedReceive recv, PreparedPoll recvPoll, PreparedPoll sendPoll)
            throws IOException {
        Completions c = Objects.requireNonNull(side.completions);
        Objects.requireNonNull(direct);
        Objects.requireNonNull(recv);
        Objects.requireNonNull(recvPoll);
        Objects.requireNonNull(sendPoll);
        int iters = Math.toIntExact(rule.iterations());
        long[] posted = rule.postStamps();
        // perftest re-posts while rcnt + rx_depth <= iters (rcnt counted with this receive).
        int lastRepost = iters - side.s.rxDepth();
        rule.start(System.nanoTime());
        int scnt = 0;
        int rcnt = 0;
        try {
            while (scnt < iters || rcnt < iters) {
                if (rcnt < iters && (scnt > 0 || !client)) {
                    c.spin(recvPoll, "receive");
                    if (++rcnt <= lastRepost) {
                        recv.post();
                    }
                }
                if (scnt < iters) {
                    direct.post();   // the clock after the post, as in send()
                    posted[scnt++] = PostClock.now();
                    c.spin(sendPoll, "send");
                }
            }
        } finally {
            // Each receive up to lastRepost was re-posted (a failed re-post ends the run with its exception).
            int reposted = Math.max(0, Math.min(rcnt, lastRepost));
            side.post.receivesPosted(reposted, reposted);
            send.addPosts(scnt);
        }
    }

    /**
     * {@link #sendCounted} posting through the extended post API ({@code ibv_wr_*}, one
     * {@link PreparedExtendedSend}): the same loop with the other request class, written out
     * rather than shared through an interface, so that each loop's post is a call C2 binds
     * statically and inlines with no class check (the two loops never run in the same process).
     */
    private static void sendCountedExtended(Side side, StopRule rule, boolean client, SendPoster send,
                                            PreparedExtendedSend direct, PreparedReceive recv, PreparedPoll recvPoll,
                                            PreparedPoll sendPoll) throws IOException {
        Completions c = Objects.requireNonNull(side.completions);
        Objects.requireNonNull(direct);
        Objects.requireNonNull(recv);
        Objects.requireNonNull(recvPoll);
        Objects.requireNonNull(sendPoll);
        int iters = Math.toIntExact(rule.iterations());
        long[] posted = rule.postStamps();
        int lastRepost = iters - side.s.rxDepth();
        rule.start(System.nanoTime());
        int scnt = 0;
        int rcnt = 0;
        try {
            while (scnt < iters || rcnt < iters) {
                if (rcnt < iters && (scnt > 0 || !client)) {
                    c.spin(recvPoll, "receive");
                    if (++rcnt <= lastRepost) {
                        recv.post();
                    }
                }
                if (scnt < iters) {
                    direct.post();
                    posted[scnt++] = PostClock.now();
                    c.spin(sendPoll, "send");
                }
            }
        } finally {
            int reposted = Math.max(0, Math.min(rcnt, lastRepost));
            side.post.receivesPosted(reposted, reposted);
            send.addPosts(scnt);
        }
    }

    /** run_iter_lat_write: write the counter into the peer's last byte, spin on our own; the server writes first. */
    static void write(Side side, long size, StopRule rule) throws IOException {
        Completions c = side.completions;
        long iters = rule.iterations();
        boolean client = side.s.client();
        MemorySegment buf = side.buffer.mr().segment();
        long postOffset = size - 1;
        long pollOffset = (long) side.qps.size() * side.buffer.slot() + size - 1;
        boolean spin = c.spins(rule);   // as in send()
        try (SendPoster write = SendPoster.single(side, 0, size, SendOpcode.RDMA_WRITE);
             PreparedPoll poll = PreparedPoll.ofConfined(side.sendCq)) {
            rule.start(System.nanoTime());
            int scnt = 0;
            int ccnt = 0;
            int rcnt = 0;
            while (scnt < iters || ccnt < iters || rcnt < iters) {
                if (rcnt < iters && !(scnt < 1 && !client)) {
                    if (!awaitPeerWrite(c, buf, pollOffset, rcnt + 1, rule)) {
                        break;
                    }
                    rcnt++;
                }
                if (scnt < iters) {
                    BYTE.setVolatile(buf, postOffset, (byte) (scnt + 1));
                    rule.beforePost();
                    write.post();
                    rule.posted(scnt++);   // after the post, as in send()
                }
                if (ccnt < iters) {
                    if (spin) {
                        c.spin(poll, "RDMA write");
                    } else if (!c.take(side.sendCq, "RDMA write", rule) || !rule.completed()) {
                        break;
                    }
                    ccnt++;
                }
            }
            if (rule.timed()) {
                lingerForWriteLatency(side, write, buf, postOffset, pollOffset, (byte) scnt, (byte) rcnt);
            }
        }
    }

    /**
     * Spins until the peer's write number {@code n} shows in the last byte of this side's
     * receive slot: within the timeout, and in window mode false once the window is over.
     */
    private static boolean awaitPeerWrite(Completions c, MemorySegment buf, long pollOffset, int n, StopRule rule)
            throws IOException {
        byte expected = (byte) n;
        long deadline = 0;
        int spins = 0;
        while ((byte) BYTE.getVolatile(buf, pollOffset) != expected) {
            // no Thread.onSpinWait: as in take(), a PAUSE only delays seeing the completion
            if ((++spins & c.spinMask) == 0) {
                long now = System.nanoTime();
                if (rule.timed() && rule.window().over(now)) {
                    return false;
                }
                if (deadline == 0) {
                    deadline = now + c.timeoutNanos();
                } else if (now - deadline > 0) {
                    throw new RdmaTimeoutException("write " + n + " of the peer did not arrive",
                            "the receive buffer", c.timeout(), Completions.STALLED);
                }
            }
        }
        return true;
    }

    /** run_iter_lat: read/atomic round trips, one at a time (the client only). */
    static void roundTrip(Side side, long size, StopRule rule) throws IOException {
        Completions c = side.completions;
        long iters = rule.iterations();
        String what = side.operationName();
        boolean spin = c.spins(rule);   // as in send()
        CompletionQueue cq = side.sendCq;
        try (SendPoster r = SendPoster.single(side, 0, size, side.opcode());
             PreparedPoll poll = PreparedPoll.ofConfined(cq)) {
            PreparedSend direct = r.prepared();
            PreparedExtendedSend extended = r.preparedExtended();
            if (spin && direct != null && !rule.hasGap()) {
                roundTripCounted(c, rule, what, r, direct, poll);
                return;
            }
            if (spin && extended != null && !rule.hasGap()) {
                roundTripCountedExtended(c, rule, what, r, extended, poll);
                return;
            }
            rule.start(System.nanoTime());
            for (int i = 0; i < iters; i++) {
                rule.beforePost();
                r.post();
                rule.posted(i);   // after the post, as in send()
                if (spin) {
                    c.spin(poll, what);
                } else if (!c.take(cq, what, rule) || !rule.completed()) {
                    break;
                }
            }
        }
    }

    /**
     * {@link #roundTrip}'s loop in count mode without -e or --latency_gap, posting with
     * {@code ibv_post_send}: perftest's four steps, a method of its own and shaped as
     * {@link #sendCounted} is.
     */
    private static void roundTripCounted(Completions c, StopRule rule, String what, SendPoster r, PreparedSend direct,
                                         PreparedPoll poll) throws IOException {
        Objects.requireNonNull(c);
        Objects.requireNonNull(direct);
        Objects.requireNonNull(poll);
        int iters = Math.toIntExact(rule.iterations());
        long[] posted = rule.postStamps();
        rule.start(System.nanoTime());
        int i = 0;
        try {
            for (; i < iters; i++) {
                direct.post();
                posted[i] = PostClock.now();   // after the post, as in send()
                c.spin(poll, what);
            }
        } finally {
            r.addPosts(i);
        }
    }

    /** {@link #roundTripCounted} through the extended post API, written out as {@link #sendCountedExtended} is. */
    private static void roundTripCountedExtended(Completions c, StopRule rule, String what, SendPoster r,
                                                 PreparedExtendedSend direct, PreparedPoll poll) throws IOException {
        Objects.requireNonNull(c);
        Objects.requireNonNull(direct);
        Objects.requireNonNull(poll);
        int iters = Math.toIntExact(rule.iterations());
        long[] posted = rule.postStamps();
        rule.start(System.nanoTime());
        int i = 0;
        try {
            for (; i < iters; i++) {
                direct.post();
                posted[i] = PostClock.now();
                c.spin(poll, what);
            }
        } finally {
            r.addPosts(i);
        }
    }

    /**
     * After this side's -D end, keep answering the peer's writes until it has been quiet for
     * {@link #LINGER_QUIET_NANOS} (at most {@link #LINGER_MAX_NANOS}). perftest's write_lat waits for the peer's byte in a loop whose
     * end-of-run check the compiler may hoist (its state is not volatile), so a perftest peer
     * whose end comes later than ours would otherwise spin forever on a byte we never write
     * (observed with ib_write_lat -D as the client of a jrdma server).
     */
    private static void lingerForWriteLatency(Side side, SendPoster write, MemorySegment buf, long postOffset,
                                              long pollOffset, byte scnt, byte rcnt) throws IOException {
        long quietSince = System.nanoTime();
        long giveUp = quietSince + LINGER_MAX_NANOS;
        int empty = 0;
        while (true) {
            long now = System.nanoTime();
            if (now - quietSince > LINGER_QUIET_NANOS || now - giveUp > 0) {
                return;
            }
            if ((byte) BYTE.getVolatile(buf, pollOffset) == (byte) (rcnt + 1)) {
                rcnt++;
                BYTE.setVolatile(buf, postOffset, ++scnt);
                write.post();
                side.completions.take(side.sendCq, "RDMA write");
                quietSince = System.nanoTime();
                empty = 0;
            } else {
                empty = empty == Integer.MAX_VALUE ? empty : empty + 1;
                LINGER_IDLE.idle(empty);
            }
        }
    }
}
