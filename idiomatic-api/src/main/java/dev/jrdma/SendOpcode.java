// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The operation of a send work request ({@code enum ibv_wr_opcode}). */
public enum SendOpcode {
    /** Write local memory into the peer's memory (one-sided). */
    RDMA_WRITE(0),
    /** RDMA WRITE that also consumes a receive at the peer and delivers immediate data. */
    RDMA_WRITE_WITH_IMM(1),
    /** Send a message into a receive the peer posted. */
    SEND(2),
    /** SEND with 32 bits of immediate data. */
    SEND_WITH_IMM(3),
    /** Read the peer's memory into local memory (one-sided). */
    RDMA_READ(4),
    /** Compare-and-swap on 8 aligned bytes of the peer's memory; the old value lands locally. */
    ATOMIC_CMP_AND_SWP(5),
    /** Fetch-and-add on 8 aligned bytes of the peer's memory; the old value lands locally. */
    ATOMIC_FETCH_AND_ADD(6);

    private static final CValues<SendOpcode> BY_VALUE = new CValues<>(values(), c -> c.value, null, "SendOpcode");

    private final int value;

    SendOpcode(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static SendOpcode of(int value) {
        return BY_VALUE.of(value);
    }
}
