// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_srq;
import dev.jrdma.bindings.generated.ibv_srq_attr;
import dev.jrdma.bindings.generated.ibv_srq_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * A shared receive queue ({@code struct ibv_srq}): one pool of receive buffers for many queue
 * pairs ({@link QueuePair.Builder#sharedReceiveQueue}). From
 * {@link ProtectionDomain#createSharedReceiveQueue}. Closing it first closes the queue pairs
 * that use it. Posting is not thread-safe: post from one thread at a time.
 *
 * <p>{@link #toString()}: {@code shared receive queue handle <n> on <device>}.
 */
public final class SharedReceiveQueue extends NativeObject {
    private final ProtectionDomain pd;
    private final int maxWorkRequests;
    private final int maxSges;
    // The bad_wr slot lives as long as this object (an automatic arena; posts fence this).
    private final MemorySegment badReceive = Arena.ofAuto().allocate(ADDRESS);
    private final long badReceiveAddress = badReceive.address();
    final long address;
    /** The provider's post_srq_recv, read from the ops table once. */
    final MemorySegment postSrqRecvFn;
    /** Whether the provider's function is the one BoundVerbs calls as a constant. */
    final boolean bound;

    private SharedReceiveQueue(ProtectionDomain pd, MemorySegment handle, int maxWorkRequests, int maxSges) {
        super(handle, "shared receive queue handle " + ibv_srq.handle(handle) + " on " + pd.context().name(),
                pd);
        this.pd = pd;
        this.address = handle.address();
        this.postSrqRecvFn = InlineVerbs.postSrqRecvFunction(handle);
        this.bound = BoundVerbs.bindPostSrqRecv(postSrqRecvFn);
        this.maxWorkRequests = maxWorkRequests;
        this.maxSges = maxSges;
    }

    static SharedReceiveQueue create(ProtectionDomain pd, int maxWorkRequests, int maxSges) {
        if (maxWorkRequests < 1 || maxSges < 1) {
            throw new IllegalArgumentException("a shared receive queue needs at least 1 work request and 1 SGE, not "
                    + maxWorkRequests + " and " + maxSges);
        }
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment init = arena.allocate(ibv_srq_init_attr.layout());
            MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, maxWorkRequests);
            ibv_srq_attr.max_sge(attr, maxSges);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment srq = ErrnoVerbs.ibv_create_srq(errno, pd.handle(), init);
            if (srq.address() == 0) {
                throw RdmaException.of(Verb.IBV_CREATE_SRQ, pd + ", " + maxWorkRequests + " work requests, " + maxSges
                        + " SGEs", Errno.get(errno));
            }
            // As for QPs, the provider writes back what it granted.
            return wrapCreated(srq, ibv_srq.layout(),
                    h -> new SharedReceiveQueue(pd, h, ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr)),
                    rdma_h::ibv_destroy_srq);
        }
    }

    /** {@return the protection domain} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the outstanding receive work requests the provider granted} */
    public int maxWorkRequests() {
        return maxWorkRequests;
    }

    /** {@return the SGEs per receive work request the provider granted} */
    public int maxSges() {
        return maxSges;
    }

    /**
     * Posts a receive work request, or a chain of them, with one call; a failure names the request.
     *
     * @param request the first request of the chain
     */
    public void post(ReceiveRequest request) {
        int rc = postReceive(request);
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_POST_SRQ_RECV, this, rc,
                    request.find(badReceive.get(JAVA_LONG, 0)) + " was not posted");
        }
    }

    /**
     * As {@link #post(ReceiveRequest)}, but a full queue is an answer: returns false, allocating
     * nothing, when the provider had no room for the first request (ENOMEM), so nothing was
     * posted; other failures throw as {@code post} does.
     *
     * @param request the first request of the chain
     * @return true when the whole chain was posted, false when none of it was for lack of room
     */
    public boolean tryPost(ReceiveRequest request) {
        int rc = postReceive(request);
        if (rc == 0) {
            return true;
        }
        if (request.refusedForRoom(rc, badReceive)) {
            return false;
        }
        throw RdmaException.of(Verb.IBV_POST_SRQ_RECV, this, rc,
                request.find(badReceive.get(JAVA_LONG, 0)) + " was not posted");
    }

    private int postReceive(ReceiveRequest request) {
        enter();
        try {
            request.prepare(pd);
            return bound ? BoundVerbs.postSrqRecv(address, request.address(), badReceiveAddress)
                    : InlineVerbs.postSrqRecv(postSrqRecvFn, address, request.address(), badReceiveAddress);
        } finally {
            exit();
            Reference.reachabilityFence(request);
        }
    }

    @Override
    void release() {
        RdmaException.check(Verb.IBV_DESTROY_SRQ, this, rdma_h.ibv_destroy_srq(handle));
    }
}
