// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** A path MTU ({@code enum ibv_mtu}): the largest payload of one packet. */
public enum Mtu {
    /** 256 bytes. */
    MTU_256,
    /** 512 bytes. */
    MTU_512,
    /** 1024 bytes (the largest that fits a 1500-byte Ethernet frame with RoCE v2 headers). */
    MTU_1024,
    /** 2048 bytes. */
    MTU_2048,
    /** 4096 bytes. */
    MTU_4096;

    /** {@return the MTU in bytes} */
    public int bytes() {
        return 128 << value();   // IBV_MTU_256 is 1: each step doubles
    }

    /**
     * The value of the C {@code enum ibv_mtu} constant: 1 for 256 bytes up to 5 for 4096 bytes,
     * as the verbs ABI and wire formats such as perftest's MTU exchange carry it.
     *
     * @return 1..5
     */
    public int value() {
        return ordinal() + 1;   // dense from IBV_MTU_256
    }

    /**
     * {@return the smaller of two MTUs: what a path between two ports can carry}
     *
     * @param other the other port's MTU
     */
    public Mtu min(Mtu other) {
        return compareTo(other) <= 0 ? this : other;
    }

    /**
     * The constant for a C {@code enum ibv_mtu} value ({@link #value()}).
     *
     * @param value 1..5
     * @return the constant
     * @throws IllegalArgumentException for a value outside 1..5
     */
    public static Mtu of(int value) {
        return CValues.dense(Mtu.class, value, 1, null);
    }
}
