// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The call-state segment that errno-capturing downcalls write into.
 *
 * <p>Create/alloc verbs report failure as NULL plus errno, and errno must be captured inside
 * the downcall: by the time Java code runs again the JVM may have clobbered it. One state
 * segment per thread (or per call site) is enough; the verbs in {@link ErrnoVerbs} and
 * {@link InlineVerbs} write errno into the segment passed as their first argument.
 *
 * <p>Also jrdma's one table of the errno values it reacts to, taken from the generated
 * bindings of the C headers (asm-generic/errno*.h, the numbering of Linux on x86-64 and
 * aarch64) rather than typed again.
 */
public final class Errno {
    public static final int EPERM = rdma_h.EPERM();
    public static final int ENOENT = rdma_h.ENOENT();
    public static final int EINTR = rdma_h.EINTR();
    public static final int EAGAIN = rdma_h.EAGAIN();
    public static final int ENOMEM = rdma_h.ENOMEM();
    public static final int EBUSY = rdma_h.EBUSY();
    public static final int EINVAL = rdma_h.EINVAL();
    public static final int ENOSYS = rdma_h.ENOSYS();
    public static final int ENODATA = rdma_h.ENODATA();
    public static final int EOPNOTSUPP = rdma_h.EOPNOTSUPP();

    /** Layout of the capture state for {@code Linker.Option.captureCallState("errno")}. */
    public static final StructLayout LAYOUT = Linker.Option.captureStateLayout();
    static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final VarHandle ERRNO =
            LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private Errno() {}

    /** Allocates a capture-state segment. */
    public static MemorySegment allocate(SegmentAllocator allocator) {
        return allocator.allocate(LAYOUT);
    }

    /** The errno captured by the last call that was given {@code state}. */
    public static int get(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** A downcall handle to {@code address} that captures errno into a leading state-segment argument. */
    static MethodHandle capturing(MemorySegment address, FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(address, descriptor, CAPTURE);
    }

    /** Stores {@code value}, for shims that fail before reaching native code, as C's inline verbs set errno. */
    static void set(MemorySegment state, int value) {
        ERRNO.set(state, 0L, value);
    }
}
