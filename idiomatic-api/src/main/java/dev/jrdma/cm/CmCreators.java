// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.Context;
import dev.jrdma.NativeResource;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.CoreAccess;
import dev.jrdma.internal.NativeCreator;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * How an rdma_cm id creates its queue pair ({@code rdma_create_qp}) and shared receive queue
 * ({@code rdma_create_srq}) and destroys them: the core fills in the attributes and owns the
 * objects, and calls these instead of the verbs, so that it never names {@link CmId}.
 */
final class CmCreators {
    private static final CoreAccess CORE = CoreAccess.get();

    private CmCreators() {}

    /** {@link CmId#createQueuePair}: {@code builder}'s queue pair, on {@code id}'s SRQ if it has one. */
    static QueuePair createQueuePair(CmId id, Context context, QueuePair.Builder builder) {
        ProtectionDomain pd = CORE.protectionDomain(builder);
        if (pd.context() != context) {
            throw new IllegalArgumentException("the protection domain must come from " + id + ".context()");
        }
        SharedReceiveQueue srq = id.sharedReceiveQueue();
        if (srq != null && CORE.sharedReceiveQueue(builder) == null && pd == srq.protectionDomain()) {
            builder.sharedReceiveQueue(srq);   // rdma_create_qp gives it id->srq anyway: say so to QueuePair
        }
        return CORE.createQueuePair(builder, queuePairs(id));
    }

    /** {@link CmId#createSharedReceiveQueue}, once {@code pd} is checked. */
    static SharedReceiveQueue createSharedReceiveQueue(CmId id, ProtectionDomain pd, int maxWorkRequests,
            int maxSges) {
        return CORE.createSharedReceiveQueue(pd, sharedReceiveQueues(id), maxWorkRequests, maxSges);
    }

    /** {@return the first of an id's {@code dependents} of {@code type} (its queue pair, its SRQ), or null} */
    static <T> T dependent(List<NativeResource> dependents, Class<T> type) {
        for (NativeResource r : dependents) {
            if (type.isInstance(r)) {
                return type.cast(r);
            }
        }
        return null;
    }

    /** {@code rdma_create_qp} or {@code rdma_create_srq} on an id: 0 on success, the object then in the id. */
    private interface CreateOnId {
        int create(MemorySegment errno, MemorySegment id, MemorySegment pd, MemorySegment initAttr);
    }

    /**
     * An object rdma_cm creates on an id and destroys with it: {@code make} fills the id's
     * pointer, which {@code made} reads; {@code unmake} (given the id's handle without the
     * open check, as the id may be closing: its dependents close first) also clears it, which
     * rdma_disconnect would otherwise still use.
     */
    private record OnId(CmId id, Verb verb, CreateOnId make, Function<MemorySegment, MemorySegment> made,
            Consumer<MemorySegment> unmake) implements NativeCreator {
        @Override
        public NativeResource owner() {
            return id.lifetime;
        }

        @Override
        public MemorySegment create(MemorySegment errno, MemorySegment pd, MemorySegment initAttr) {
            MemorySegment handle = id.handle();
            return make.create(errno, handle, pd, initAttr) == 0 ? made.apply(handle) : MemorySegment.NULL;
        }

        @Override
        public void destroy() {
            unmake.accept(id.rawHandle());
        }
    }

    private static OnId queuePairs(CmId id) {
        return new OnId(id, Verb.RDMA_CREATE_QP, RdmaCmVerbs::rdma_create_qp,
                handle -> rdma_cm_id.qp(handle.reinterpret(rdma_cm_id.layout().byteSize())), rdma_h::rdma_destroy_qp);
    }

    private static OnId sharedReceiveQueues(CmId id) {
        return new OnId(id, Verb.RDMA_CREATE_SRQ, RdmaCmVerbs::rdma_create_srq, rdma_cm_id::srq,
                RdmaCmVerbs::rdma_destroy_srq);
    }
}
