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
        return CORE.createQueuePair(builder, new QueuePairs(id));
    }

    /** {@link CmId#createSharedReceiveQueue}, once {@code pd} is checked. */
    static SharedReceiveQueue createSharedReceiveQueue(CmId id, ProtectionDomain pd, int maxWorkRequests,
            int maxSges) {
        return CORE.createSharedReceiveQueue(pd, new SharedReceiveQueues(id), maxWorkRequests, maxSges);
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

    private record QueuePairs(CmId id) implements NativeCreator {
        @Override
        public NativeResource owner() {
            return id.lifetime;
        }

        @Override
        public Verb verb() {
            return Verb.RDMA_CREATE_QP;
        }

        @Override
        public MemorySegment create(MemorySegment errno, MemorySegment pd, MemorySegment initAttr) {
            MemorySegment handle = id.handle();
            return RdmaCmVerbs.rdma_create_qp(errno, handle, pd, initAttr) == 0
                    ? rdma_cm_id.qp(handle.reinterpret(rdma_cm_id.layout().byteSize()))
                    : MemorySegment.NULL;
        }

        @Override
        public void destroy() {
            // Also clears id->qp, which rdma_disconnect would otherwise still use; the id may be
            // closing (its dependents close first), hence the handle without the open check.
            rdma_h.rdma_destroy_qp(id.rawHandle());
        }
    }

    private record SharedReceiveQueues(CmId id) implements NativeCreator {
        @Override
        public NativeResource owner() {
            return id.lifetime;
        }

        @Override
        public Verb verb() {
            return Verb.RDMA_CREATE_SRQ;
        }

        @Override
        public MemorySegment create(MemorySegment errno, MemorySegment pd, MemorySegment initAttr) {
            MemorySegment handle = id.handle();
            return RdmaCmVerbs.rdma_create_srq(errno, handle, pd, initAttr) == 0
                    ? rdma_cm_id.srq(handle)
                    : MemorySegment.NULL;
        }

        @Override
        public void destroy() {
            RdmaCmVerbs.rdma_destroy_srq(id.rawHandle());   // also clears id->srq
        }
    }
}
