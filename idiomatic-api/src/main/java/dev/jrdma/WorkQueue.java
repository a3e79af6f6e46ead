// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_wq;
import dev.jrdma.bindings.generated.ibv_wq_attr;
import dev.jrdma.bindings.generated.ibv_wq_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SteeringVerbs;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;

/**
 * A receive work queue ({@code struct ibv_wq}, {@code IBV_WQT_RQ}): a receive queue without a
 * queue pair, one of several that an {@link RwqIndirectionTable} spreads incoming traffic over
 * (receive-side scaling). From {@link Context#createWorkQueue}; providers without work queues
 * (rxe) refuse it with {@link OperationNotSupportedException}. Posting is not thread-safe.
 *
 * <p>{@link #toString()}: {@code work queue <n> on <device>}.
 */
@Reaches({"ibv_destroy_wq"})   // close() reaches them
public final class WorkQueue extends NativeObject {
    /** The states of a work queue ({@code enum ibv_wq_state}). */
    public enum State {
        /** Created, not yet receiving. */
        RESET,
        /** Receiving. */
        READY,
        /** Failed. */
        ERROR
    }

    private final Context context;
    private final ProtectionDomain pd;
    private final MemorySegment badReceive = Arena.ofAuto().allocate(ADDRESS);

    private WorkQueue(Context context, ProtectionDomain pd, MemorySegment handle) {
        super(handle, "work queue " + ibv_wq.wq_num(handle) + " on " + context.name(), pd);
        this.context = context;
        this.pd = pd;
    }

    static WorkQueue create(Context context, ProtectionDomain pd, CompletionQueue cq, int maxWorkRequests, int maxSges) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context, pd, cq)) {
            MemorySegment init = arena.allocate(ibv_wq_init_attr.layout());
            ibv_wq_init_attr.wq_type(init, rdma_h.IBV_WQT_RQ());
            ibv_wq_init_attr.max_wr(init, maxWorkRequests);
            ibv_wq_init_attr.max_sge(init, maxSges);
            ibv_wq_init_attr.pd(init, pd.handle());
            ibv_wq_init_attr.cq(init, cq.handle());
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment wq = SteeringVerbs.ibv_create_wq(errno, context.handle(), init);
            RdmaException.checkCreated(Verb.IBV_CREATE_WQ, pd + ", " + cq, errno, wq, context, "work queues");
            return wrapCreated(wq, ibv_wq.layout(), h -> {
                WorkQueue queue = new WorkQueue(context, pd, h);
                queue.dependOn(cq);
                return queue;
            }, SteeringVerbs::ibv_destroy_wq);
        }
    }

    /** {@return the work queue number} */
    public int number() {
        return ibv_wq.wq_num(handle());
    }

    /**
     * Moves the work queue to {@code state}.
     *
     * @param state the new state
     */
    @Reaches({"ibv_modify_wq"})
    public void modify(State state) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_wq_attr.layout());
            ibv_wq_attr.attr_mask(attr, rdma_h.IBV_WQ_ATTR_STATE());
            ibv_wq_attr.wq_state(attr, state.ordinal());   // IBV_WQS_RESET, _RDY, _ERR are 0, 1, 2
            enter();
            try {
                int rc = SteeringVerbs.ibv_modify_wq(handle, attr);
                if (rc != 0) {
                    throw RdmaException.of(Verb.IBV_MODIFY_WQ, this, rc, Unsupported.detail(context, rc, "work queues",
                            "to " + state));
                }
            } finally {
                exit();
            }
        }
    }

    /**
     * Posts a receive work request, or a chain of them.
     *
     * @param request the first request of the chain
     */
    @Reaches({"ibv_post_wq_recv"})
    public void post(ReceiveRequest request) {
        enter();
        int rc;
        try {
            request.prepare(pd);
            rc = SteeringVerbs.ibv_post_wq_recv(handle, MemorySegment.ofAddress(request.address()), badReceive);
        } finally {
            exit();
            Reference.reachabilityFence(request);
        }
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_POST_WQ_RECV, this, rc,
                    request.find(badReceive.get(JAVA_LONG, 0)) + " was not posted");
        }
    }

    /** Destroys the work queue; reaches {@code ibv_destroy_wq}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_WQ, this, SteeringVerbs.ibv_destroy_wq(handle));
    }
}
