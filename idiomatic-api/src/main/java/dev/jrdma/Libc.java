package dev.jrdma;

import dev.jrdma.bindings.shim.Posix;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** The libc facts jrdma needs beyond the shims: the page size (and strerror, from the shim). */
final class Libc {
    private Libc() {}

    private static final MethodHandle SYSCONF = Linker.nativeLinker().defaultLookup().find("sysconf")
            .map(address -> Linker.nativeLinker().downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)))
            .orElse(null);
    /** {@code _SC_PAGESIZE} in glibc's unistd.h enumeration. */
    private static final int SC_PAGESIZE = 30;

    /** The page size: registration pins whole pages, so allocations for MRs are page-aligned. */
    static final long PAGE_SIZE = pageSize();

    private static long pageSize() {
        if (SYSCONF != null) {
            try {
                long size = (long) SYSCONF.invokeExact(SC_PAGESIZE);
                if (size > 0 && Long.bitCount(size) == 1) {
                    return size;
                }
            } catch (Throwable t) {
                throw new AssertionError("sysconf downcall failed", t);
            }
        }
        return 4096;
    }

    /** {@code strerror(errnum)}, as text. */
    static String strerror(int errnum) {
        return Posix.strerror(errnum);
    }
}
