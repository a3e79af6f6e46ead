// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A page of machine code, for the few instructions Java cannot express and a downcall must reach:
 * the time-stamp counter read of the CLI's post clock, the extended post's one-call routine
 * ({@link ExtendedPostTrampoline}). The page is written while it is read-write and only then made
 * read-only and executable, so it is never writable and executable at once (W^X). It is never
 * unmapped: one small page per use and process, and compiled code may call into it until the JVM
 * exits.
 */
public final class ExecutablePage {
    private static final int PROT_READ = 0x1;
    private static final int PROT_WRITE = 0x2;
    private static final int PROT_EXEC = 0x4;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final long PAGE = 4096;

    private ExecutablePage() {
    }

    /**
     * Maps {@code code} into a page of its own, read-only and executable.
     *
     * @param code x86-64 (or whatever this CPU runs) instructions, at most a page
     * @return the page, its first byte the code's
     * @throws IllegalArgumentException when the code is empty or larger than a page
     * @throws IllegalStateException naming what refused: {@code mmap}, or {@code mprotect(PROT_EXEC)}
     *         (a W^X policy, e.g. SELinux's execmem)
     */
    public static MemorySegment of(byte[] code) {
        if (code.length == 0 || code.length > PAGE) {
            throw new IllegalArgumentException("machine code of " + code.length + " bytes: 1 to " + PAGE + " fit a page");
        }
        MemorySegment page;
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            MethodHandle mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(),
                    FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
            MethodHandle mprotect = linker.downcallHandle(libc.find("mprotect").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
            page = (MemorySegment) mmap.invokeExact(MemorySegment.NULL, PAGE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE_ANONYMOUS, -1, 0L);
            if (page.address() == -1L) {
                throw new IllegalStateException("mmap refused a page for machine code");
            }
            page = page.reinterpret(PAGE);
            MemorySegment.copy(code, 0, page, JAVA_BYTE, 0, code.length);
            if ((int) mprotect.invokeExact(page, PAGE, PROT_READ | PROT_EXEC) != 0) {
                throw new IllegalStateException("executable memory is refused (mprotect PROT_EXEC)");
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mapping a page of machine code failed: " + t, t);
        }
        return page;
    }
}
