// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A receive work request (or a chain of them) checked once for a queue pair or a shared
 * receive queue and then posted as often as needed, as perftest re-posts the
 * {@code struct ibv_recv_wr} it built before its loop. {@link #of(QueuePair, ReceiveRequest)}
 * and {@link #of(SharedReceiveQueue, ReceiveRequest)} check what a post would (regions open,
 * in the queue's protection domain and in bounds) and copy the native structs into memory this
 * object owns; {@link #post()} tests this object's open/close guard (and a queue pair's state
 * word) and calls the provider.
 *
 * <p>Between posts the wr_id ({@link #wrId(int, long)}) and the length of a single-SGE
 * request, down from the length prepared ({@link #length(int, int)}), can change. Closing the
 * queue, or a region the request uses, closes this object first; its next {@code post} throws
 * {@link IllegalStateException}. Posting is not thread-safe: one thread at a time, as for the
 * queue. Posting allocates nothing. Made with {@code ofConfined}, a request belongs to the thread
 * that prepared it: its posts take no guard word, and other threads can neither post it nor close
 * it or what it depends on while that thread runs ({@link WrongThreadException}).
 *
 * <p>{@link #toString()}: {@code prepared receive of <n> work request(s) on <queue>}.
 */
public final class PreparedReceive extends PreparedWork {
    private static final long WR_SIZE = ibv_recv_wr.layout().byteSize();

    /** The queue pair posted to, or null for a shared receive queue. */
    private final QueuePair qp;
    private final SharedReceiveQueue srq;
    private final long queueAddress;
    private final MemorySegment postFn;
    private final boolean bound;
    private final String description;

    private PreparedReceive(QueuePair qp, SharedReceiveQueue srq, List<ReceiveRequest> chain, Thread confinedTo,
                            NativeResource[] owners) {
        super(chain, WR_SIZE, confinedTo, owners);
        this.qp = qp;
        this.srq = srq;
        if (qp != null) {
            this.queueAddress = qp.address;
            this.postFn = qp.posts.postRecvFn;
            this.bound = qp.posts.receiveBound;
        } else {
            this.queueAddress = srq.address;
            this.postFn = srq.postSrqRecvFn;
            this.bound = srq.bound;
        }
        int n = chain.size();
        this.description = "prepared receive of " + n + " work request" + (n == 1 ? "" : "s") + " on "
                + (qp != null ? qp : srq);
    }

    /**
     * Checks {@code request} (and the requests chained to it) for {@code qp}'s receive queue as a
     * post would, and prepares them to be posted together, as often as needed. Later changes to
     * {@code request} do not affect the prepared copy.
     *
     * @param qp      a queue pair with its own receive queue (not one on a shared receive queue)
     * @param request the first request of the chain
     * @return the prepared request, a dependent of the queue pair and its regions
     */
    public static PreparedReceive of(QueuePair qp, ReceiveRequest request) {
        return prepare(qp, request, null);
    }

    /**
     * As {@link #of(QueuePair, ReceiveRequest)}, for the calling thread alone, as an
     * {@link java.lang.foreign.Arena#ofConfined() confined arena} is: a post takes no atomic (a
     * shared request's guard costs a store-load fence per post), and in exchange only this thread
     * may post or close the request, and while it runs, no other thread may close what the request
     * depends on (its queue pair, regions, their protection domain and context). Such a close
     * throws {@link WrongThreadException} and changes nothing; close the request first, on this
     * thread. Once this thread has terminated, any thread may close it.
     *
     * @param qp      a queue pair with its own receive queue
     * @param request the first request of the chain
     * @return the prepared request, confined to the calling thread
     */
    public static PreparedReceive ofConfined(QueuePair qp, ReceiveRequest request) {
        return prepare(qp, request, Thread.currentThread());
    }

    private static PreparedReceive prepare(QueuePair qp, ReceiveRequest request, Thread confinedTo) {
        if (qp.srq != null) {
            throw new IllegalArgumentException(qp + " takes its receives from " + qp.srq + ": prepare them there");
        }
        try (var _ = hold(qp)) {
            request.prepare(qp.protectionDomain());
            List<ReceiveRequest> chain = chain(request);
            return new PreparedReceive(qp, null, chain, confinedTo, owners(qp, chain));
        }
    }

    /**
     * Checks {@code request} (and the requests chained to it) for {@code srq} as a post would,
     * and prepares them to be posted together, as often as needed.
     *
     * @param srq     the shared receive queue to post to
     * @param request the first request of the chain
     * @return the prepared request, a dependent of the shared receive queue and its regions
     */
    public static PreparedReceive of(SharedReceiveQueue srq, ReceiveRequest request) {
        return prepare(srq, request, null);
    }

    /**
     * As {@link #of(SharedReceiveQueue, ReceiveRequest)}, confined to the calling thread as
     * {@link #ofConfined(QueuePair, ReceiveRequest)} is.
     *
     * @param srq     the shared receive queue to post to
     * @param request the first request of the chain
     * @return the prepared request, confined to the calling thread
     */
    public static PreparedReceive ofConfined(SharedReceiveQueue srq, ReceiveRequest request) {
        return prepare(srq, request, Thread.currentThread());
    }

    private static PreparedReceive prepare(SharedReceiveQueue srq, ReceiveRequest request, Thread confinedTo) {
        try (var _ = hold(srq)) {
            request.prepare(srq.protectionDomain());
            List<ReceiveRequest> chain = chain(request);
            return new PreparedReceive(null, srq, chain, confinedTo, owners(srq, chain));
        }
    }

    private static NativeResource[] owners(NativeResource queue, List<ReceiveRequest> chain) {
        List<NativeResource> owners = new ArrayList<>();
        owners.add(queue);
        for (ReceiveRequest r : chain) {
            for (int k = 0; k < r.sges.count(); k++) {
                owners.add(r.sges.region(k));
            }
        }
        return owners.toArray(NativeResource[]::new);
    }

    /**
     * Posts the prepared chain. Throws {@link IllegalStateException} if this object, its queue
     * or a region it uses is closed, or if the queue pair is in RESET, or in ERR after
     * {@link QueuePair#toError()}; {@link RdmaException} naming the first request the provider
     * refused.
     */
    @Reaches({"ibv_post_recv", "ibv_post_srq_recv"})
    public void post() {
        int rc = postNow();
        if (rc != 0) {
            throw failure(rc);
        }
    }

    /**
     * As {@link #post()}, but a full receive queue is an answer: returns false, allocating
     * nothing, when the provider had no room for the first request (ENOMEM).
     *
     * @return true when the whole chain was posted, false when none of it was for lack of room
     */
    @Reaches({"ibv_post_recv", "ibv_post_srq_recv"})
    public boolean tryPost() {
        int rc = postNow();
        if (rc == 0) {
            return true;
        }
        if (refusedForRoom(rc)) {
            return false;
        }
        throw failure(rc);
    }

    // The guard lives in PostGuard, one for the three prepared requests.
    private static final PostGuard.Inside<PreparedReceive> INSIDE = PreparedReceive::postInside;

    private int postNow() {
        return PostGuard.post(this, INSIDE);
    }

    private int postInside() {
        if (qp != null) {
            if ((qp.refused & QueuePair.NO_RECEIVE) != 0) {
                throw refused();
            }
            checkCallerMemory();
            return bound ? BoundVerbs.postRecv(queueAddress, first, badWr)
                    : InlineVerbs.postRecv(postFn, queueAddress, first, badWr);
        }
        checkCallerMemory();
        return bound ? BoundVerbs.postSrqRecv(queueAddress, first, badWr)
                : InlineVerbs.postSrqRecv(postFn, queueAddress, first, badWr);
    }

    // Out of line: the message is built only when a post is refused (see PreparedSend.refused).
    private IllegalStateException refused() {
        return PostRefusals.receive(qp, describe(0), qp.lastState);
    }

    private RuntimeException failure(int rc) {
        if (qp != null) {
            return PostRefusals.failure(qp, Verb.IBV_POST_RECV, rc, describeBad());
        }
        return RdmaException.of(Verb.IBV_POST_SRQ_RECV, srq, rc, describeBad() + " was not posted");
    }

    /**
     * Sets the wr_id of the first request.
     *
     * @param wrId any 64-bit value, returned in the completion
     * @return this request
     */
    public PreparedReceive wrId(long wrId) {
        setWrId(0, wrId);
        return this;
    }

    /**
     * Sets the wr_id of request {@code index} of the chain.
     *
     * @param index {@code 0 <= index < size()}
     * @param wrId  any 64-bit value, returned in the completion
     * @return this request
     */
    public PreparedReceive wrId(int index, long wrId) {
        setWrId(index, wrId);
        return this;
    }

    /**
     * Sets the length of the first request's only SGE; see {@link #length(int, int)}.
     *
     * @param bytes {@code 0 <= bytes <=} the length prepared
     * @return this request
     */
    public PreparedReceive length(int bytes) {
        return length(0, bytes);
    }

    /**
     * Sets the length of request {@code index}'s only SGE, at most the length it was prepared
     * with (whose region bounds were checked then).
     *
     * @param index {@code 0 <= index < size()}
     * @param bytes {@code 0 <= bytes <=} the length prepared
     * @return this request
     * @throws IllegalStateException when the request has several SGEs
     * @throws IndexOutOfBoundsException when the length is out of those bounds
     */
    public PreparedReceive length(int index, int bytes) {
        setLength(index, bytes);
        return this;
    }

    @Override
    String describe(int index) {
        return "receive request wr_id " + wrIdOf(index);
    }

    @Override
    public String toString() {
        return description;
    }
}
