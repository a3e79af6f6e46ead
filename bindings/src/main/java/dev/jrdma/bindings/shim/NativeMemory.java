// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import java.lang.foreign.MemorySegment;

/** All of memory as one segment, for the shims that read a field of a native struct at its address. */
final class NativeMemory {
    private NativeMemory() {}

    /** Lets a pointer field be read at {@code base + offset} without making a segment per call. */
    static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
}
