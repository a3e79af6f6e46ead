// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.AddressHandle;
import dev.jrdma.ExtendedSendQueue;
import dev.jrdma.MemoryRegion;
import dev.jrdma.PreparedExtendedSend;
import dev.jrdma.PreparedSend;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.lang.foreign.MemorySegment;

/**
 * How a loop posts one QP's send work: a single request or, with -l, a list of them in one
 * post, as perftest's post_send_method does - through the extended post API ({@code ibv_wr_*},
 * {@link Extended}) where the QPs were created for it (by default on the devices perftest uses
 * it on), or with {@code ibv_post_send} ({@link Prepared}: --use_old_post_send, -R, rxe and
 * other devices, or a device without it).
 * Either is built once before the loop; a post allocates nothing.
 *
 * <p>In a list, every cq-mod-th request is signalled (-Q divides -l), fixed when it is built,
 * as perftest builds its lists; a single request's signalled flag is the loop's to set before
 * each post ({@link #signaled}).
 */
abstract sealed class SendPoster implements AutoCloseable {
    /** The requests of one post. */
    final int list;
    /** Where the posts are counted, when this poster closes. */
    private final PostResources counts;
    /**
     * The posts since this poster was built: one add to its own field per post, added to
     * {@link #counts} (--json's send_posts, send_requests) when it closes, instead of two
     * read-modify-writes on another object in every iteration of a measurement loop.
     */
    private long posts;

    private SendPoster(Side side, int list) {
        this.list = list;
        this.counts = side.post;
    }

    /** Counts a post of the list. */
    final void counted() {
        posts++;
    }

    /** Counts {@code n} posts its caller made through {@link #prepared()}. */
    final void addPosts(long n) {
        posts += n;
    }

    /**
     * The {@link PreparedSend} this poster posts with {@code ibv_post_send}, or null when it
     * posts through the extended post API. The count-mode latency loops post it themselves (and
     * count those posts with {@link #addPosts}): on their iteration's path that is one test of a
     * local instead of {@link #post()}'s dispatch on the poster's class, which C2 compiles as a
     * null check, a check of the poster's class and a field load.
     */
    PreparedSend prepared() {
        return null;
    }

    /**
     * The single {@link PreparedExtendedSend} this poster posts through the extended post API,
     * or null (a list, or {@code ibv_post_send}): the count-mode loops post it themselves, as
     * {@link #prepared()}'s.
     */
    PreparedExtendedSend preparedExtended() {
        return null;
    }

    /** Adds the posts counted so far to --json's counts; {@link #close()} does. */
    final void flushCounts() {
        counts.sendPosts += posts;
        counts.sendRequests += posts * list;
        posts = 0;
    }

    /**
     * QP {@code qp}'s poster of {@code list} requests of {@code size} bytes; a single request
     * starts signalled as {@code signaled} says.
     */
    static SendPoster of(Side side, int qp, long size, SendOpcode opcode, int list, int cqMod, boolean signaled) {
        return side.post.extendedPost ? new Extended(side, qp, size, opcode, list, cqMod, signaled)
                : new Prepared(side, qp, size, opcode, list, cqMod, signaled);
    }

    /** A single signalled request (the latency loops). */
    static SendPoster single(Side side, int qp, long size, SendOpcode opcode) {
        return of(side, qp, size, opcode, 1, 1, true);
    }

    /** Whether request {@code j} of a list of {@code list} is signalled: every cq-mod-th, as perftest's lists. */
    static boolean signaledInList(int j, int list, int cqMod, boolean single) {
        return list == 1 ? single : (j + 1) % cqMod == 0;
    }

    /** Sets whether the next posts' request is signalled (single requests only; a list's are fixed). */
    abstract SendPoster signaled(boolean signaled);

    /** Posts the request or the list; throws naming the failure (e.g. a full send queue). */
    abstract void post();

    /** Whether it posts through the extended post API. */
    abstract boolean extended();

    /** Adds this poster's posts to --json's counts, then frees its request. */
    @Override
    public abstract void close();

    /** ibv_post_send of a {@link PreparedSend} chain. */
    static final class Prepared extends SendPoster {
        private final PreparedSend send;

        Prepared(Side side, int qp, long size, SendOpcode opcode, int list, int cqMod, boolean signaled) {
            super(side, list);
            SendRequest head = side.sendRequest(qp, size, opcode).signaled(signaledInList(0, list, cqMod, signaled));
            SendRequest last = head;
            for (int j = 1; j < list; j++) {
                SendRequest next = side.sendRequest(qp, size, opcode).signaled(signaledInList(j, list, cqMod, signaled));
                last.next(next);
                last = next;
            }
            // Confined: a poster is made, posted and closed by one loop on one thread (warm-up
            // twins too, each on its own thread), so its posts need no guard word.
            send = PreparedSend.ofConfined(side.qps.get(qp), head);
        }

        @Override
        SendPoster signaled(boolean signaled) {
            send.signaled(signaled);
            return this;
        }

        @Override
        void post() {
            send.post();
            counted();
        }

        @Override
        PreparedSend prepared() {
            return send;
        }

        @Override
        boolean extended() {
            return false;
        }

        @Override
        public void close() {
            flushCounts();
            send.close();
        }
    }

    /**
     * ibv_wr_start, per request the operation and its data (and a UD destination), then
     * ibv_wr_complete: what perftest's new post send does. The request's description is taken
     * from the side as {@link Side#sendRequest} takes it; a single request is that very request,
     * prepared once ({@link PreparedExtendedSend}), a list is built into a checked batch per post.
     */
    static final class Extended extends SendPoster {
        private final ExtendedSendQueue sq;
        /**
         * A single request, checked once ({@link PreparedExtendedSend}: start, the operation, its
         * data, complete, no check between them), as perftest posts the struct it built; null for a list.
         */
        private final PreparedExtendedSend prepared;
        private final Verb verb;
        private final SendOpcode opcode;
        private final long wrId;
        private final boolean[] signaled;
        private final MemoryRegion region;
        private final long offset;
        private final int length;
        /** The bytes of an inline request (sliced once: a slice per post would allocate), else null. */
        private final MemorySegment inlineData;
        private final RemoteMemory remote;
        private final AddressHandle ah;
        private final int remoteQpn;
        private final long compareAdd;

        Extended(Side side, int qp, long size, SendOpcode opcode, int list, int cqMod, boolean single) {
            super(side, list);
            this.verb = side.verb;
            this.opcode = opcode;
            this.wrId = qp;
            this.signaled = new boolean[list];
            for (int j = 0; j < list; j++) {
                signaled[j] = signaledInList(j, list, cqMod, single);
            }
            this.region = side.region(qp);
            this.offset = side.sendOffset(qp);
            this.length = verb == Verb.ATOMIC ? 8 : (int) size;
            boolean inline = (verb == Verb.SEND || verb == Verb.WRITE) && size <= side.session.inlineSize();
            this.inlineData = inline ? region.segment().asSlice(offset, length) : null;
            if (verb != Verb.SEND) {
                PeerInfo p = side.records.remote.get(qp);
                this.remote = new RemoteMemory(p.vaddr(), verb == Verb.ATOMIC ? 8 : size, p.rkey());
            } else {
                this.remote = null;
            }
            this.ah = side.ud && verb == Verb.SEND ? side.records.addressHandles.get(qp) : null;
            // -g: the multicast QPN where the peer announced a group (Addressing.remoteQpn), as ibv_post_send's path.
            this.remoteQpn = ah != null ? Addressing.remoteQpn(side.s, side.records.remote.get(qp)) : 0;
            // perftest's ATOMIC_ADD_VALUE (1) for fetch-and-add; compare 0 and swap 0 (ATOMIC_SWAP_VALUE) for CAS
            this.compareAdd = side.s.atomicType() == TestKind.AtomicType.CMP_AND_SWAP ? 0 : 1;
            // The loop's thread alone posts on this queue pair, from here to close(): it owns the send
            // queue, so its posts (and a list's batches) skip the claim's compare-and-set.
            this.sq = ExtendedSendQueue.of(side.qps.get(qp)).ownSendQueue();
            sq.inline(inline);
            // Confined, as Prepared's: made, posted and closed by one loop on one thread.
            this.prepared = list == 1
                    ? PreparedExtendedSend.ofConfined(sq, side.sendRequest(qp, size, opcode).signaled(single)) : null;
        }

        @Override
        SendPoster signaled(boolean on) {
            signaled[0] = on;
            if (prepared != null) {
                prepared.signaled(on);
            }
            return this;
        }

        @Override
        void post() {
            if (prepared != null) {
                prepared.post();
                counted();
                return;
            }
            ExtendedSendQueue q = sq.start();
            try {
                for (int j = 0; j < signaled.length; j++) {
                    q.wrId(wrId).signaled(signaled[j]);
                    switch (opcode) {
                        case SEND -> q.send();
                        case SEND_WITH_IMM -> q.sendWithImmediate(OperationSettings.IMMEDIATE);
                        case RDMA_WRITE -> q.rdmaWrite(remote, 0);
                        case RDMA_WRITE_WITH_IMM -> q.rdmaWriteWithImmediate(remote, 0, OperationSettings.IMMEDIATE);
                        case RDMA_READ -> q.rdmaRead(remote, 0);
                        case ATOMIC_CMP_AND_SWP -> q.compareAndSwap(remote, 0, compareAdd, 0);
                        case ATOMIC_FETCH_AND_ADD -> q.fetchAndAdd(remote, 0, compareAdd);
                        default -> throw new IllegalStateException("perftest posts no " + opcode);
                    }
                    if (inlineData != null) {
                        q.inlineData(inlineData);
                    } else {
                        q.sge(region, offset, length);
                    }
                    if (ah != null) {
                        q.udAddress(ah, remoteQpn, Side.QKEY);
                    }
                }
                q.complete();
                counted();
            } finally {
                q.close();   // aborts the batch when an operation threw before complete()
            }
        }

        @Override
        PreparedExtendedSend preparedExtended() {
            return prepared;
        }

        @Override
        boolean extended() {
            return true;
        }

        @Override
        public void close() {
            flushCounts();
            if (prepared != null) {
                prepared.close();
            }
            sq.close();
            sq.releaseSendQueue();
        }
    }
}
