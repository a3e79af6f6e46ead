// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** The transport service of a queue pair ({@code enum ibv_qp_type}). */
public enum QueuePairType {
    /** Reliable connected: one peer, acknowledged, all operations. */
    RC,
    /** Unreliable connected: one peer, no acknowledgements, no RDMA READ or atomics. */
    UC,
    /** Unreliable datagram: any peer, SEND only, messages up to one MTU. */
    UD;

    /** The value of the C enum constant. */
    int value() {
        return ordinal() + 2;   // dense from IBV_QPT_RC
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static QueuePairType of(int value) {
        return CValues.dense(QueuePairType.class, value, 2, null);
    }
}
