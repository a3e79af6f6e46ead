// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** The transport a device speaks ({@code enum ibv_transport_type}); RoCE reports IB. */
public enum TransportType {
    /** A value this version of jrdma does not know (or the C value -1, IBV_TRANSPORT_UNKNOWN). */
    UNKNOWN,
    /** InfiniBand transport, also used by RoCE. */
    IB,
    /** iWARP. */
    IWARP,
    /** usNIC. */
    USNIC,
    /** usNIC over UDP. */
    USNIC_UDP,
    /** The provider did not say. */
    UNSPECIFIED;

    /** The value of the C enum constant. */
    int value() {
        return ordinal() - 1;   // dense from IBV_TRANSPORT_UNKNOWN
    }

    /** The constant for a C value; {@link #UNKNOWN} for values this version does not know. */
    static TransportType of(int value) {
        return CValues.dense(TransportType.class, value, -1, UNKNOWN);
    }
}
