// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The logical state of a port ({@code enum ibv_port_state}). */
public enum PortState {
    /** Reserved. */
    NOP(0),
    /** Link down. */
    DOWN(1),
    /** Link up, not yet configured by the subnet manager. */
    INIT(2),
    /** Configured, waiting to become active. */
    ARMED(3),
    /** Ready for traffic. */
    ACTIVE(4),
    /** Active, but deferring some traffic. */
    ACTIVE_DEFER(5);

    private static final CValues<PortState> BY_VALUE = new CValues<>(values(), c -> c.value, null, "PortState");

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    /**
     * The value of the C {@code enum ibv_port_state} constant (0 NOP ... 5 ACTIVE_DEFER), as
     * {@code ibv_devinfo} prints it next to the name.
     *
     * @return 0..5
     */
    public int value() {
        return value;
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static PortState of(int value) {
        return BY_VALUE.of(value);
    }
}
