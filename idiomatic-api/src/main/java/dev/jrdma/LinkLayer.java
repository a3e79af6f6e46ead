// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The link layer under a port ({@code IBV_LINK_LAYER_*}). */
public enum LinkLayer {
    /** Not reported (older providers; treat as InfiniBand). */
    UNSPECIFIED(0),
    /** InfiniBand: LIDs route packets. */
    INFINIBAND(1),
    /** Ethernet (RoCE): GIDs route packets, there are no LIDs. */
    ETHERNET(2);

    private static final CValues<LinkLayer> BY_VALUE = new CValues<>(values(), c -> c.value, null, "LinkLayer");

    private final int value;

    LinkLayer(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static LinkLayer of(int value) {
        return BY_VALUE.of(value);
    }
}
