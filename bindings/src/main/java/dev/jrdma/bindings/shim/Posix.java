// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few libc calls jrdma needs around the verbs, kept here so that every downcall of the
 * project lives in the bindings module: {@code poll(2)}, so that waiting on a completion
 * channel or rdma_cm event channel fd has a timeout (ibv_get_cq_event and rdma_get_cm_event
 * block forever); {@code strerror} for error messages; the page size that registration pins;
 * and for the tools, {@code isatty} and the calling thread's CPU affinity.
 */
public final class Posix {
    private Posix() {}

    /** {@code POLLIN} on Linux. */
    public static final short POLLIN = 0x001;
    /** {@code F_GETFL}, {@code F_SETFL} and {@code O_NONBLOCK} on Linux (x86-64 and arm64 alike). */
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;

    /** {@code struct pollfd { int fd; short events; short revents; }} */
    private static final StructLayout POLLFD = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"), JAVA_SHORT.withName("events"), JAVA_SHORT.withName("revents"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle POLL = LINKER.downcallHandle(
            LINKER.defaultLookup().find("poll").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
            Errno.CAPTURE);
    // fcntl is variadic: the third argument must be passed as a variadic int.
    private static final MethodHandle FCNTL = LINKER.downcallHandle(
            LINKER.defaultLookup().find("fcntl").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Errno.CAPTURE, Linker.Option.firstVariadicArg(2));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().find("strerror").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle SYSCONF = LINKER.defaultLookup().find("sysconf")
            .map(address -> LINKER.downcallHandle(address, FunctionDescriptor.of(JAVA_LONG, JAVA_INT)))
            .orElse(null);
    /** {@code _SC_PAGESIZE} in glibc's unistd.h enumeration. */
    private static final int SC_PAGESIZE = 30;
    private static final MethodHandle ISATTY = LINKER.defaultLookup().find("isatty")
            .map(address -> LINKER.downcallHandle(address, FunctionDescriptor.of(JAVA_INT, JAVA_INT)))
            .orElse(null);
    private static final FunctionDescriptor AFFINITY = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);
    // Optional like sysconf and isatty: a missing symbol must not take poll and strerror down with it.
    private static final MethodHandle SCHED_SETAFFINITY = LINKER.defaultLookup().find("sched_setaffinity")
            .map(address -> LINKER.downcallHandle(address, AFFINITY, Errno.CAPTURE)).orElse(null);
    private static final MethodHandle SCHED_GETAFFINITY = LINKER.defaultLookup().find("sched_getaffinity")
            .map(address -> LINKER.downcallHandle(address, AFFINITY, Errno.CAPTURE)).orElse(null);

    /**
     * Waits until {@code fd} is readable or {@code timeoutMillis} passes (-1: forever).
     * Returns true when readable, false on timeout; EINTR is retried with the remaining time.
     */
    public static boolean awaitReadable(int fd, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(POLLFD);
            MemorySegment errno = Errno.allocate(arena);
            while (true) {
                pollfd.set(JAVA_INT, 0, fd);
                pollfd.set(JAVA_SHORT, 4, POLLIN);
                pollfd.set(JAVA_SHORT, 6, (short) 0);
                int wait = timeoutMillis < 0 ? -1
                        : (int) Math.max(0, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000L));
                int n;
                try {
                    n = (int) POLL.invokeExact(errno, pollfd, 1L, wait);
                } catch (Throwable t) {
                    throw ErrnoVerbs.rethrow(t);
                }
                if (n > 0) {
                    return true;
                }
                if (n == 0) {
                    return false;
                }
                if (Errno.get(errno) != Errno.EINTR) {
                    throw new IllegalStateException("poll(fd " + fd + ") failed: " + strerror(Errno.get(errno)));
                }
            }
        }
    }

    /**
     * Makes reads of {@code fd} fail with EAGAIN instead of blocking. A completion or rdma_cm
     * event that made the fd readable can be withdrawn by the kernel before it is read (when
     * its CQ or id is destroyed meanwhile); a blocking read would then wait forever.
     */
    public static void setNonBlocking(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            int flags = fcntl(errno, fd, F_GETFL, 0);
            if (flags < 0 || fcntl(errno, fd, F_SETFL, flags | O_NONBLOCK) < 0) {
                throw new IllegalStateException("fcntl(fd " + fd + ", O_NONBLOCK) failed: "
                        + strerror(Errno.get(errno)));
            }
        }
    }

    private static int fcntl(MemorySegment errno, int fd, int cmd, int arg) {
        try {
            return (int) FCNTL.invokeExact(errno, fd, cmd, arg);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** The C library's text for an errno value, e.g. "Cannot allocate memory" for 12. */
    public static String strerror(int errno) {
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            // strerror's text is NUL-terminated and short; the bound only limits the scan.
            return text.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * The page size ({@code sysconf(_SC_PAGESIZE)}), or 4096 when the C library has no sysconf
     * or reports something that is not a power of two.
     */
    public static long pageSize() {
        if (SYSCONF != null) {
            try {
                long size = (long) SYSCONF.invokeExact(SC_PAGESIZE);
                if (size > 0 && Long.bitCount(size) == 1) {
                    return size;
                }
            } catch (Throwable t) {
                throw ErrnoVerbs.rethrow(t);
            }
        }
        return 4096;
    }

    /** Whether {@code fd} is a terminal ({@code isatty}); false when the C library has none. */
    public static boolean isatty(int fd) {
        if (ISATTY == null) {
            return false;
        }
        try {
            return (int) ISATTY.invokeExact(fd) == 1;
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code sched_getaffinity(0, mask.byteSize(), mask)}: the calling thread's CPUs into
     * {@code mask} (a cpu_set_t); 0, or the errno of the failure.
     */
    public static int getThreadAffinity(MemorySegment mask) {
        return affinity(SCHED_GETAFFINITY, "sched_getaffinity", mask);
    }

    /** {@code sched_setaffinity(0, mask.byteSize(), mask)}: binds the calling thread; 0, or the errno. */
    public static int setThreadAffinity(MemorySegment mask) {
        return affinity(SCHED_SETAFFINITY, "sched_setaffinity", mask);
    }

    private static int affinity(MethodHandle call, String name, MemorySegment mask) {
        if (call == null) {
            throw new IllegalStateException(name + " is not in the C library");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            int rc = (int) call.invokeExact(errno, 0, mask.byteSize(), mask);
            return rc == 0 ? 0 : Errno.get(errno);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
