// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.NativeResource;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.NativeCreator;
import java.lang.foreign.MemorySegment;

/**
 * How an rdma_cm id creates its queue pair ({@code rdma_create_qp}) and shared receive queue
 * ({@code rdma_create_srq}) and destroys them: the core fills in the attributes and owns the
 * objects, and calls these instead of the verbs, so that it never names {@link CmId}.
 */
final class CmCreators {
    private CmCreators() {}

    /** {@return the creator of {@code id}'s queue pair: {@code rdma_create_qp}, then {@code id->qp}} */
    static NativeCreator queuePair(CmId id) {
        return new QueuePairs(id);
    }

    /** {@return the creator of {@code id}'s shared receive queue: {@code rdma_create_srq}, then {@code id->srq}} */
    static NativeCreator sharedReceiveQueue(CmId id) {
        return new SharedReceiveQueues(id);
    }

    private record QueuePairs(CmId id) implements NativeCreator {
        @Override
        public NativeResource owner() {
            return id;
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
            return id;
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
