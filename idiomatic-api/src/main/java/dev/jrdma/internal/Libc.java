// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import dev.jrdma.bindings.shim.Posix;

/** The libc facts jrdma needs beyond the verbs, from the bindings' shim (which owns every downcall). */
public final class Libc {
    private Libc() {}

    /** The page size: registration pins whole pages, so allocations for MRs are page-aligned. */
    public static final long PAGE_SIZE = Posix.pageSize();

    /** {@code strerror(errnum)}, as text. */
    public static String strerror(int errnum) {
        return Posix.strerror(errnum);
    }
}
