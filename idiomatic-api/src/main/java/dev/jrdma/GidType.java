// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** How a GID table entry is used on the wire ({@code enum ibv_gid_type}). */
public enum GidType {
    /** InfiniBand GID (also the type of RoCE v1 entries in older kernels). */
    IB,
    /** RoCE v1: GRH directly over Ethernet. */
    ROCE_V1,
    /** RoCE v2: encapsulated in UDP/IP, routable. */
    ROCE_V2;

    /** The value of the C enum constant. */
    int value() {
        return ordinal();   // dense from IBV_GID_TYPE_IB
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static GidType of(int value) {
        return CValues.dense(GidType.class, value, 0, null);
    }
}
