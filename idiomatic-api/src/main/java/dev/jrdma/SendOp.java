// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.Set;

/**
 * An operation the extended post API may build on a queue pair ({@code enum
 * ibv_qp_create_send_ops_flags}): the queue pair is created with the set it will use
 * ({@link QueuePair.Builder#extendedPost(SendOp...)}), and the provider fills in the
 * {@code ibv_wr_*} builders for exactly that set. A provider refuses a set it cannot do at
 * creation time, with {@link OperationNotSupportedException} (librxe 44: RC takes all but
 * {@link #TSO}; UC the writes, sends and memory-window ops; UD only {@link #SEND} and
 * {@link #SEND_WITH_IMM}).
 */
public enum SendOp {
    /** {@code ibv_wr_rdma_write}. */
    RDMA_WRITE(1),
    /** {@code ibv_wr_rdma_write_imm}. */
    RDMA_WRITE_WITH_IMM(1 << 1),
    /** {@code ibv_wr_send}. */
    SEND(1 << 2),
    /** {@code ibv_wr_send_imm}. */
    SEND_WITH_IMM(1 << 3),
    /** {@code ibv_wr_rdma_read}. */
    RDMA_READ(1 << 4),
    /** {@code ibv_wr_atomic_cmp_swp}. */
    ATOMIC_CMP_AND_SWP(1 << 5),
    /** {@code ibv_wr_atomic_fetch_add}. */
    ATOMIC_FETCH_AND_ADD(1 << 6),
    /** {@code ibv_wr_local_inv}: invalidates a local memory window's (or fast-registered region's) rkey. */
    LOCAL_INV(1 << 7),
    /** {@code ibv_wr_bind_mw}: binds a type 2 memory window. */
    BIND_MW(1 << 8),
    /** {@code ibv_wr_send_inv}: a send that invalidates an rkey at the receiver. */
    SEND_WITH_INV(1 << 9),
    /** {@code ibv_wr_send_tso}: TCP segmentation offload on raw packet and UD queue pairs. */
    TSO(1 << 10),
    /** {@code ibv_wr_atomic_write}: 8 bytes written atomically into the peer's memory. */
    ATOMIC_WRITE(1 << 12);

    private final int bit;

    SendOp(int bit) {
        this.bit = bit;
    }

    /** The C flag. */
    int bit() {
        return bit;
    }

    /** {@code send_ops_flags} for a set of operations. */
    static long flags(Set<SendOp> ops) {
        return CFlags.word(ops, SendOp::bit);
    }

    /** The operations a {@code send_ops_flags} word names (unknown bits are dropped). */
    static Set<SendOp> of(long flags) {
        return CFlags.constants(SendOp.class, flags, SendOp::bit);
    }
}
