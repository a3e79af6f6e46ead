// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** How far a device guarantees atomicity of atomic operations ({@code enum ibv_atomic_cap}). */
public enum AtomicCapability {
    /** No atomic operations. */
    NONE,
    /** Atomic with respect to other atomics of this device only. */
    HCA,
    /** Atomic with respect to the CPU and other devices too. */
    GLOB;

    /**
     * The value of the C {@code enum ibv_atomic_cap} constant ({@code IBV_ATOMIC_NONE} 0,
     * {@code IBV_ATOMIC_HCA} 1, {@code IBV_ATOMIC_GLOB} 2), as {@code ibv_devinfo -v} prints it.
     *
     * @return 0..2
     */
    public int value() {
        return ordinal();   // dense from IBV_ATOMIC_NONE
    }

    static AtomicCapability of(int value) {
        return CValues.dense(AtomicCapability.class, value, 0, NONE);   // unknown: promise nothing
    }
}
