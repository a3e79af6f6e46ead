// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * A queue pair's one-off posts ({@link QueuePair#post(SendRequest)} and its kin): the provider's
 * post functions, read from the ops table once, the bad_wr slots, and the checks a post of an
 * unprepared request runs each time (the state word, then the request's own {@code prepare}).
 * {@link PreparedSend} and {@link PreparedReceive} take the functions from here once and check
 * their request at preparation instead.
 */
final class QueuePairPosts {
    private final QueuePair qp;
    /** The queue pair's handle as an address; libibverbs owns the ibv_qp until destroy. */
    private final long address;
    // The bad_wr slots live as long as this object (an automatic arena): the queue pair holds it,
    // and a post's exit() keeps the queue pair reachable until the call has returned.
    private final MemorySegment badSend;
    private final MemorySegment badReceive;
    private final long badSendAddress;
    private final long badReceiveAddress;
    /** The provider's post functions, read from the ops table once (it never changes for a context). */
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    /** Whether the provider's functions are the ones BoundVerbs calls as constants (one provider per process). */
    final boolean sendBound;
    final boolean receiveBound;
    /** Who holds the send queue between ibv_wr_start and ibv_wr_complete (the extended post API). */
    final SendQueueClaim extendedClaim = new SendQueueClaim();

    QueuePairPosts(QueuePair qp, MemorySegment handle) {
        this.qp = qp;
        this.address = handle.address();
        Arena arena = Arena.ofAuto();
        this.badSend = arena.allocate(ADDRESS);
        this.badReceive = arena.allocate(ADDRESS);
        this.badSendAddress = badSend.address();
        this.badReceiveAddress = badReceive.address();
        this.postSendFn = InlineVerbs.postSendFunction(handle);
        this.postRecvFn = InlineVerbs.postRecvFunction(handle);
        this.sendBound = BoundVerbs.bindPostSend(postSendFn);
        this.receiveBound = BoundVerbs.bindPostRecv(postRecvFn);
    }

    void post(SendRequest request) {
        int rc = postSend(request);
        if (rc != 0) {
            request.unposted(badSend.get(JAVA_LONG, 0));
            throw PostRefusals.failure(qp, Verb.IBV_POST_SEND, rc, request.find(badSend.get(JAVA_LONG, 0)));
        }
    }

    boolean tryPost(SendRequest request) {
        int rc = postSend(request);
        if (rc == 0) {
            return true;
        }
        request.unposted(badSend.get(JAVA_LONG, 0));
        if (request.refusedForRoom(rc, badSend)) {
            return false;
        }
        throw PostRefusals.failure(qp, Verb.IBV_POST_SEND, rc, request.find(badSend.get(JAVA_LONG, 0)));
    }

    private int postSend(SendRequest request) {
        qp.enter();
        try {
            if ((qp.refused & QueuePair.NO_SEND) != 0) {
                throw PostRefusals.send(qp, request, qp.lastState);
            }
            request.prepare(qp);
            return sendBound ? BoundVerbs.postSend(address, request.address(), badSendAddress)
                    : InlineVerbs.postSend(postSendFn, address, request.address(), badSendAddress);
        } finally {
            qp.exit();
            Reference.reachabilityFence(request);
        }
    }

    void post(ReceiveRequest request) {
        int rc = postReceive(request);
        if (rc != 0) {
            throw PostRefusals.failure(qp, Verb.IBV_POST_RECV, rc, request.find(badReceive.get(JAVA_LONG, 0)));
        }
    }

    boolean tryPost(ReceiveRequest request) {
        int rc = postReceive(request);
        if (rc == 0) {
            return true;
        }
        if (request.refusedForRoom(rc, badReceive)) {
            return false;
        }
        throw PostRefusals.failure(qp, Verb.IBV_POST_RECV, rc, request.find(badReceive.get(JAVA_LONG, 0)));
    }

    private int postReceive(ReceiveRequest request) {
        qp.enter();
        try {
            if ((qp.refused & QueuePair.NO_RECEIVE) != 0) {
                throw PostRefusals.receive(qp, qp.srq, request, qp.lastState);
            }
            request.prepare(qp.protectionDomain());
            return receiveBound ? BoundVerbs.postRecv(address, request.address(), badReceiveAddress)
                    : InlineVerbs.postRecv(postRecvFn, address, request.address(), badReceiveAddress);
        } finally {
            qp.exit();
            Reference.reachabilityFence(request);
        }
    }
}
