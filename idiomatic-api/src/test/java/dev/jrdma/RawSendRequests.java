// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Send work requests built through the bindings, for asking the provider what jrdma refuses to
 * post (a foreign lkey, an unaligned atomic, a post in RESET): the tests compare both answers.
 */
final class RawSendRequests {
    private RawSendRequests() {}

    /** A signaled request of {@code opcode} (an {@code IBV_WR_*} value) with one SGE. */
    static MemorySegment of(Arena arena, int opcode, long address, int length, int lkey) {
        MemorySegment sge = arena.allocate(ibv_sge.layout());
        ibv_sge.addr(sge, address);
        ibv_sge.length(sge, length);
        ibv_sge.lkey(sge, lkey);
        MemorySegment wr = arena.allocate(ibv_send_wr.layout());
        ibv_send_wr.wr_id(wr, 1);
        ibv_send_wr.opcode(wr, opcode);
        ibv_send_wr.sg_list(wr, sge);
        ibv_send_wr.num_sge(wr, 1);
        ibv_send_wr.send_flags(wr, rdma_h.IBV_SEND_SIGNALED());
        return wr;
    }

    /** Sets an atomic request's target and operand. */
    static MemorySegment atomic(MemorySegment wr, long wrId, RemoteMemory target, long compareAdd) {
        MemorySegment atomic = ibv_send_wr.wr.atomic(ibv_send_wr.wr(wr));
        ibv_send_wr.wr_id(wr, wrId);
        ibv_send_wr.wr.atomic.remote_addr(atomic, target.address());
        ibv_send_wr.wr.atomic.rkey(atomic, target.rkey());
        ibv_send_wr.wr.atomic.compare_add(atomic, compareAdd);
        return wr;
    }

    /** {@code ibv_post_send} on {@code qp}, with the queue pair held open; returns its errno value. */
    static int post(QueuePair qp, Arena arena, MemorySegment wr) {
        try (var _ = NativeResource.hold(qp)) {
            return InlineVerbs.ibv_post_send(qp.handle(), wr, arena.allocate(ValueLayout.ADDRESS));
        }
    }
}
