// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The transport service of a queue pair ({@code enum ibv_qp_type}). */
public enum QueuePairType {
    /** Reliable connected: one peer, acknowledged, all operations. */
    RC(2),
    /** Unreliable connected: one peer, no acknowledgements, no RDMA READ or atomics. */
    UC(3),
    /** Unreliable datagram: any peer, SEND only, messages up to one MTU. */
    UD(4);

    private static final CValues<QueuePairType> BY_VALUE =
            new CValues<>(values(), c -> c.value, null, "QueuePairType");

    private final int value;

    QueuePairType(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static QueuePairType of(int value) {
        return BY_VALUE.of(value);
    }
}
