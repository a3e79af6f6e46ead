// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.invoke.MethodHandle;

/**
 * {@code epoll(7)}, for the API's waits of virtual threads: one platform thread waits on an
 * epoll set for the fds of every waiting virtual thread, which park meanwhile (a virtual thread
 * inside a blocking native call would hold its carrier). Each call takes the errno capture state
 * ({@link Errno#allocate}) as its first argument, as in {@link ErrnoVerbs}, and returns what the
 * C function returns: -1 with errno on failure.
 */
public final class Epoll {
    private Epoll() {}

    /** {@code EPOLLIN}: the fd is readable. */
    public static final int EPOLLIN = 0x001;
    /** {@code EPOLLONESHOT}: the registration is disabled after one event, until modified or deleted. */
    public static final int EPOLLONESHOT = 1 << 30;
    /** {@code EPOLL_CTL_ADD}. */
    public static final int EPOLL_CTL_ADD = 1;
    /** {@code EPOLL_CTL_DEL}. */
    public static final int EPOLL_CTL_DEL = 2;
    /** {@code EPOLL_CLOEXEC}. */
    public static final int EPOLL_CLOEXEC = 0x80000;

    /** {@code struct epoll_event} is packed on x86-64 (12 bytes) and naturally aligned elsewhere (16). */
    private static final boolean PACKED = "amd64".equals(System.getProperty("os.arch"))
            || "x86_64".equals(System.getProperty("os.arch"));
    private static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA_OFFSET = PACKED ? 4 : 8;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle CREATE1 = capturing("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle CTL = capturing("epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle WAIT = capturing("epoll_wait",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));

    private static MethodHandle capturing(String name, FunctionDescriptor descriptor) {
        return Errno.capturing(LINKER.defaultLookup().find(name).orElseThrow(), descriptor);
    }

    /** {@code epoll_create1(flags)}: the new epoll fd, or -1 and errno. */
    public static int create1(MemorySegment errno, int flags) {
        try {
            return (int) CREATE1.invokeExact(errno, flags);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code epoll_ctl(epfd, op, fd, event)}: 0, or -1 and errno; {@code event} may be NULL for a delete. */
    public static int ctl(MemorySegment errno, int epfd, int op, int fd, MemorySegment event) {
        try {
            return (int) CTL.invokeExact(errno, epfd, op, fd, event);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code epoll_wait(epfd, events, maxEvents, timeoutMillis)}: the number of events written
     * into {@code events} (from {@link #allocateEvents}), 0 on timeout, or -1 and errno.
     */
    public static int wait(MemorySegment errno, int epfd, MemorySegment events, int maxEvents, int timeoutMillis) {
        try {
            return (int) WAIT.invokeExact(errno, epfd, events, maxEvents, timeoutMillis);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** An array of {@code count} {@code struct epoll_event}s. */
    public static MemorySegment allocateEvents(SegmentAllocator allocator, int count) {
        return allocator.allocate(EVENT_SIZE * count, 8);
    }

    /** Sets event {@code index} of {@code events} to the mask {@code mask} and the user data {@code data}. */
    public static void setEvent(MemorySegment events, int index, int mask, long data) {
        events.set(JAVA_INT, index * EVENT_SIZE, mask);
        events.set(JAVA_LONG_UNALIGNED, index * EVENT_SIZE + DATA_OFFSET, data);
    }

    /** The user data of event {@code index} of {@code events}. */
    public static long eventData(MemorySegment events, int index) {
        return events.get(JAVA_LONG_UNALIGNED, index * EVENT_SIZE + DATA_OFFSET);
    }
}
