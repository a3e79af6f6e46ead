package dev.jrdma;

/** How far a device guarantees atomicity of atomic operations ({@code enum ibv_atomic_cap}). */
public enum AtomicCapability {
    /** No atomic operations. */
    NONE,
    /** Atomic with respect to other atomics of this device only. */
    HCA,
    /** Atomic with respect to the CPU and other devices too. */
    GLOB;

    static AtomicCapability of(int value) {
        return value >= 0 && value < values().length ? values()[value] : NONE;
    }
}
