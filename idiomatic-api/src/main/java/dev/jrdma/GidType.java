// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** How a GID table entry is used on the wire ({@code enum ibv_gid_type}). */
public enum GidType {
    /** InfiniBand GID (also the type of RoCE v1 entries in older kernels). */
    IB(0),
    /** RoCE v1: GRH directly over Ethernet. */
    ROCE_V1(1),
    /** RoCE v2: encapsulated in UDP/IP, routable. */
    ROCE_V2(2);

    private static final CValues<GidType> BY_VALUE = new CValues<>(values(), c -> c.value, null, "GidType");

    private final int value;

    GidType(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static GidType of(int value) {
        return BY_VALUE.of(value);
    }
}
