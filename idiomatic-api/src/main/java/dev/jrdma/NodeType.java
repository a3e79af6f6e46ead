// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** The kind of node a device is ({@code enum ibv_node_type}). */
public enum NodeType {
    /** A value this version of jrdma does not know. */
    UNKNOWN(-1),
    /** An InfiniBand or RoCE channel adapter (HCA), Soft-RoCE included. */
    CA(1),
    /** An InfiniBand switch. */
    SWITCH(2),
    /** An InfiniBand router. */
    ROUTER(3),
    /** An iWARP NIC. */
    RNIC(4),
    /** A Cisco usNIC. */
    USNIC(5),
    /** A Cisco usNIC over UDP. */
    USNIC_UDP(6),
    /** The provider did not say. */
    UNSPECIFIED(7);

    private static final CValues<NodeType> BY_VALUE = new CValues<>(values(), c -> c.value, UNKNOWN, "NodeType");

    private final int value;

    NodeType(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; {@link #UNKNOWN} for values this version does not know. */
    static NodeType of(int value) {
        return BY_VALUE.of(value);
    }
}
