// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/**
 * What a completed work request did ({@code enum ibv_wc_opcode}). Only meaningful for
 * successful completions: the verbs leave it undefined when the status is an error.
 */
public enum WorkCompletionOpcode {
    /** A SEND (with or without immediate) completed. */
    SEND(0),
    /** An RDMA WRITE (with or without immediate) completed. */
    RDMA_WRITE(1),
    /** An RDMA READ completed. */
    RDMA_READ(2),
    /** A compare-and-swap completed. */
    COMP_SWAP(3),
    /** A fetch-and-add completed. */
    FETCH_ADD(4),
    /** A memory window bind completed. */
    BIND_MW(5),
    /** A local invalidate completed. */
    LOCAL_INV(6),
    /** A TSO send completed. */
    TSO(7),
    /** A receive consumed a SEND (or SEND with immediate). */
    RECV(128),
    /** A receive consumed an RDMA WRITE with immediate. */
    RECV_RDMA_WITH_IMM(129),
    /** An opcode this version of jrdma does not know. */
    UNKNOWN(-1);

    private static final CValues<WorkCompletionOpcode> BY_VALUE =
            new CValues<>(values(), c -> c.value, UNKNOWN, "WorkCompletionOpcode");

    private final int value;

    WorkCompletionOpcode(int value) {
        this.value = value;
    }

    int value() {
        return value;
    }

    /** {@return whether this completion belongs to a receive queue} */
    public boolean isReceive() {
        return value >= 128;
    }

    /** The constant for a C value; allocation-free. */
    static WorkCompletionOpcode of(int value) {
        return BY_VALUE.of(value);
    }
}
