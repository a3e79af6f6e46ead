// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The transport a device speaks ({@code enum ibv_transport_type}); RoCE reports IB. */
public enum TransportType {
    /** A value this version of jrdma does not know (or the C value -1, IBV_TRANSPORT_UNKNOWN). */
    UNKNOWN(-1),
    /** InfiniBand transport, also used by RoCE. */
    IB(0),
    /** iWARP. */
    IWARP(1),
    /** usNIC. */
    USNIC(2),
    /** usNIC over UDP. */
    USNIC_UDP(3),
    /** The provider did not say. */
    UNSPECIFIED(4);

    private static final CValues<TransportType> BY_VALUE =
            new CValues<>(values(), c -> c.value, UNKNOWN, "TransportType");

    private final int value;

    TransportType(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; {@link #UNKNOWN} for values this version does not know. */
    static TransportType of(int value) {
        return BY_VALUE.of(value);
    }
}
