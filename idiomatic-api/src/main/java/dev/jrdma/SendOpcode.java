// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The operation of a send work request ({@code enum ibv_wr_opcode}). */
public enum SendOpcode {
    /** Write local memory into the peer's memory (one-sided). */
    RDMA_WRITE,
    /** RDMA WRITE that also consumes a receive at the peer and delivers immediate data. */
    RDMA_WRITE_WITH_IMM,
    /** Send a message into a receive the peer posted. */
    SEND,
    /** SEND with 32 bits of immediate data. */
    SEND_WITH_IMM,
    /** Read the peer's memory into local memory (one-sided). */
    RDMA_READ,
    /** Compare-and-swap on 8 aligned bytes of the peer's memory; the old value lands locally. */
    ATOMIC_CMP_AND_SWP,
    /** Fetch-and-add on 8 aligned bytes of the peer's memory; the old value lands locally. */
    ATOMIC_FETCH_AND_ADD,
    /**
     * Invalidate a key of this side ({@link SendRequest#invalidate}): a type 2 memory window's
     * rkey, revoking it, without sending anything.
     */
    LOCAL_INV,
    /** Bind a type 2 memory window ({@link SendRequest#bind}); completes as {@link WorkCompletionOpcode#BIND_MW}. */
    BIND_MW,
    /**
     * SEND that also invalidates a key of the receiver ({@link SendRequest#invalidate}), e.g. the
     * rkey of the window the receiver exposed for this exchange; the receiver's completion
     * names it ({@link WorkCompletion#invalidatedRkey()}).
     */
    SEND_WITH_INV;

    /** The value of the C enum constant. */
    int value() {
        return ordinal();   // dense from IBV_WR_RDMA_WRITE to IBV_WR_SEND_WITH_INV (9)
    }

}
