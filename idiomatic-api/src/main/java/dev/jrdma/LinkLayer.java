// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** The link layer under a port ({@code IBV_LINK_LAYER_*}). */
public enum LinkLayer {
    /** Not reported (older providers; treat as InfiniBand). */
    UNSPECIFIED,
    /** InfiniBand: LIDs route packets. */
    INFINIBAND,
    /** Ethernet (RoCE): GIDs route packets, there are no LIDs. */
    ETHERNET;

    /** The value of the C enum constant. */
    int value() {
        return ordinal();   // dense from IBV_LINK_LAYER_UNSPECIFIED
    }

    /** The constant for a C value; IllegalArgumentException for values this version does not know. */
    static LinkLayer of(int value) {
        return CValues.dense(LinkLayer.class, value, 0, null);
    }
}
