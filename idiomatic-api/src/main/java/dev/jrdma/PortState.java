// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** The logical state of a port ({@code enum ibv_port_state}). */
public enum PortState {
    /** Reserved. */
    NOP,
    /** Link down. */
    DOWN,
    /** Link up, not yet configured by the subnet manager. */
    INIT,
    /** Configured, waiting to become active. */
    ARMED,
    /** Ready for traffic. */
    ACTIVE,
    /** Active, but deferring some traffic. */
    ACTIVE_DEFER;

    /**
     * The value of the C {@code enum ibv_port_state} constant (0 NOP ... 5 ACTIVE_DEFER), as
     * {@code ibv_devinfo} prints it next to the name.
     *
     * @return 0..5
     */
    public int value() {
        return ordinal();   // dense from IBV_PORT_NOP
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static PortState of(int value) {
        return CValues.dense(PortState.class, value, 0, null);
    }
}
