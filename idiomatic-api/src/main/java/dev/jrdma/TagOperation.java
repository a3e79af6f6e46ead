// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.jrdma.bindings.generated.ibv_ops_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A tag-matching operation ({@code struct ibv_ops_wr}) on a tag-matching shared receive queue
 * ({@link SharedReceiveQueue.Builder#tagMatching}): add a tagged receive buffer, remove one, or
 * synchronise the SRQ's view of unexpected messages. Posted with {@link #postTo}; providers
 * without tag matching (rxe) refuse it with {@link OperationNotSupportedException}.
 *
 * @param wrId            the operation's work request id, reported in its completion
 * @param opcode          what to do
 * @param unexpectedCount for ADD and SYNC: the unexpected messages software has handled
 * @param handle          for REMOVE: the tag's handle, as its ADD completion gave it
 * @param tag             for ADD: the tag
 * @param mask            for ADD: the bits of the tag that must match
 * @param recvWrId        for ADD: the id of the receive the tag's message completes
 * @param region          for ADD: the buffer's region (null otherwise)
 * @param offset          for ADD: where the buffer starts in the region
 * @param length          for ADD: its length
 */
public record TagOperation(long wrId, Opcode opcode, int unexpectedCount, int handle, long tag, long mask,
                           long recvWrId, MemoryRegion region, long offset, int length) {
    /** {@code enum ibv_ops_wr_opcode}. */
    public enum Opcode {
        /** Add a tagged buffer. */
        ADD,
        /** Remove a tagged buffer. */
        REMOVE,
        /** Synchronise the unexpected-message count. */
        SYNC
    }

    /**
     * {@return a SYNC operation}
     *
     * @param wrId            the work request id
     * @param unexpectedCount unexpected messages handled by software
     */
    public static TagOperation sync(long wrId, int unexpectedCount) {
        return new TagOperation(wrId, Opcode.SYNC, unexpectedCount, 0, 0, 0, 0, null, 0, 0);
    }

    /**
     * {@return an ADD operation for {@code [offset, offset + length)} of {@code region}}
     *
     * @param wrId     the work request id
     * @param tag      the tag
     * @param mask     the bits of the tag that must match
     * @param recvWrId the receive's id
     * @param region   the buffer's region
     * @param offset   where the buffer starts
     * @param length   its length
     */
    public static TagOperation add(long wrId, long tag, long mask, long recvWrId, MemoryRegion region, long offset,
                                   int length) {
        return new TagOperation(wrId, Opcode.ADD, 0, 0, tag, mask, recvWrId, region, offset, length);
    }

    /**
     * {@return a REMOVE operation}
     *
     * @param wrId   the work request id
     * @param handle the tag's handle
     */
    public static TagOperation remove(long wrId, int handle) {
        return new TagOperation(wrId, Opcode.REMOVE, 0, handle, 0, 0, 0, null, 0, 0);
    }

    /**
     * Posts this operation to {@code srq}; it completes on the SRQ's completion queue.
     *
     * @param srq a tag-matching shared receive queue
     */
    @Reaches({"ibv_post_srq_ops"})
    public void postTo(SharedReceiveQueue srq) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(srq, region)) {
            MemorySegment op = arena.allocate(ibv_ops_wr.layout());
            ibv_ops_wr.wr_id(op, wrId);
            ibv_ops_wr.opcode(op, switch (opcode) {
                case ADD -> rdma_h.IBV_WR_TAG_ADD();
                case REMOVE -> rdma_h.IBV_WR_TAG_DEL();
                case SYNC -> rdma_h.IBV_WR_TAG_SYNC();
            });
            MemorySegment tm = ibv_ops_wr.tm(op);
            ibv_ops_wr.tm.unexpected_cnt(tm, unexpectedCount);
            ibv_ops_wr.tm.handle(tm, handle);
            if (opcode == Opcode.ADD) {
                region.checkRange(offset, length);
                MemorySegment sge = arena.allocate(ibv_sge.layout());
                ibv_sge.addr(sge, region.address() + offset);
                ibv_sge.length(sge, length);
                ibv_sge.lkey(sge, region.lkey());
                MemorySegment add = ibv_ops_wr.tm.add(tm);
                ibv_ops_wr.tm.add.recv_wr_id(add, recvWrId);
                ibv_ops_wr.tm.add.sg_list(add, sge);
                ibv_ops_wr.tm.add.num_sge(add, 1);
                ibv_ops_wr.tm.add.tag(add, tag);
                ibv_ops_wr.tm.add.mask(add, mask);
            }
            MemorySegment badOp = arena.allocate(ADDRESS);
            int rc = ExtensionVerbs.ibv_post_srq_ops(srq.handle(), op, badOp);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_POST_SRQ_OPS, srq, rc,
                        Unsupported.detail(srq.protectionDomain().context(), rc, "tag matching", opcode + " was not posted"));
            }
        }
    }
}
