// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.ExtendedPostVerbs;
import java.lang.foreign.MemorySegment;

/**
 * The provider's {@code ibv_wr_*} functions of one {@code struct ibv_qp_ex}, read once when the
 * poster is created: the provider sets them when it creates the queue pair and never changes
 * them, and leaves NULL the builders the queue pair's send_ops_flags did not ask for. A NULL
 * entry is a {@code MemorySegment.NULL}, which SendOperations refuses before calling.
 */
record ExtendedPostFunctions(MemorySegment start, MemorySegment complete, MemorySegment abort, MemorySegment send,
                             MemorySegment sendImm, MemorySegment sendInv, MemorySegment sendTso,
                             MemorySegment rdmaWrite, MemorySegment rdmaWriteImm, MemorySegment rdmaRead,
                             MemorySegment cmpSwp, MemorySegment fetchAdd, MemorySegment atomicWrite,
                             MemorySegment bindMw, MemorySegment localInv, MemorySegment setSge,
                             MemorySegment setSgeList, MemorySegment setInline, MemorySegment setInlineList,
                             MemorySegment setUdAddr, MemorySegment setXrcSrqn) {

    static ExtendedPostFunctions of(long qpEx) {
        return new ExtendedPostFunctions(fn(qpEx, ExtendedPostVerbs.WR_START), fn(qpEx, ExtendedPostVerbs.WR_COMPLETE),
                fn(qpEx, ExtendedPostVerbs.WR_ABORT), fn(qpEx, ExtendedPostVerbs.WR_SEND),
                fn(qpEx, ExtendedPostVerbs.WR_SEND_IMM), fn(qpEx, ExtendedPostVerbs.WR_SEND_INV),
                fn(qpEx, ExtendedPostVerbs.WR_SEND_TSO), fn(qpEx, ExtendedPostVerbs.WR_RDMA_WRITE),
                fn(qpEx, ExtendedPostVerbs.WR_RDMA_WRITE_IMM), fn(qpEx, ExtendedPostVerbs.WR_RDMA_READ),
                fn(qpEx, ExtendedPostVerbs.WR_ATOMIC_CMP_SWP), fn(qpEx, ExtendedPostVerbs.WR_ATOMIC_FETCH_ADD),
                fn(qpEx, ExtendedPostVerbs.WR_ATOMIC_WRITE), fn(qpEx, ExtendedPostVerbs.WR_BIND_MW),
                fn(qpEx, ExtendedPostVerbs.WR_LOCAL_INV), fn(qpEx, ExtendedPostVerbs.WR_SET_SGE),
                fn(qpEx, ExtendedPostVerbs.WR_SET_SGE_LIST), fn(qpEx, ExtendedPostVerbs.WR_SET_INLINE_DATA),
                fn(qpEx, ExtendedPostVerbs.WR_SET_INLINE_DATA_LIST), fn(qpEx, ExtendedPostVerbs.WR_SET_UD_ADDR),
                fn(qpEx, ExtendedPostVerbs.WR_SET_XRC_SRQN));
    }

    private static MemorySegment fn(long qpEx, long offset) {
        return ExtendedPostVerbs.function(qpEx, offset);
    }
}
