// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.shim.Posix;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * --pin-cpu: binds the calling thread, and only it, to one CPU with Linux's sched_setaffinity(2)
 * (pid 0 is the calling thread). {@code taskset} binds a whole process, and for a JVM that
 * means its JIT and GC threads and the warm-up's twin threads too, which then compete with the
 * measuring thread for that one CPU; perftest is a single thread, so {@code taskset -c N
 * ib_send_lat} and {@code jrdma send-lat --pin-cpu N} place the measuring thread the same way.
 */
public final class CpuAffinity {
    private CpuAffinity() {}

    /** glibc's CPU_SETSIZE: cpu_set_t holds 1024 bits. */
    public static final int MAX_CPUS = 1024;
    private static final long SET_BYTES = MAX_CPUS / 8;

    /** The calling thread's binding until {@link #close()} restores the CPUs it had before. */
    public static final class Pinned implements AutoCloseable {
        private final long[] before;

        private Pinned(long[] before) {
            this.before = before;
        }

        @Override
        public void close() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mask = arena.allocate(SET_BYTES, 8);
                MemorySegment.copy(before, 0, mask, JAVA_LONG, 0, before.length);
                set(mask, "restoring the CPUs of the thread");
            }
        }
    }

    /**
     * Binds the calling thread to {@code cpu}; throws IllegalArgumentException naming the CPU and
     * the ones this thread may use when {@code cpu} is not among them. Threads that the calling
     * thread starts afterwards inherit the binding (Linux copies the mask at clone(2)), so bind
     * after starting helper threads.
     */
    public static Pinned pinCurrentThread(int cpu) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allowed = available(arena, cpu);
            long[] before = allowed.toArray(JAVA_LONG);
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            mask.set(JAVA_LONG, (cpu / 64) * 8L, 1L << (cpu % 64));
            set(mask, "binding the thread to CPU " + cpu);
            return new Pinned(before);
        }
    }

    /**
     * Checks, without binding anything, that the calling thread could be bound to {@code cpu}: the
     * same IllegalArgumentException as {@link #pinCurrentThread} otherwise. A caller that binds
     * late (after starting other threads, which would inherit the binding) checks early with this.
     */
    public static void checkAvailable(int cpu) {
        try (Arena arena = Arena.ofConfined()) {
            available(arena, cpu);
        }
    }

    private static MemorySegment available(Arena arena, int cpu) {
        if (cpu < 0 || cpu >= MAX_CPUS) {
            throw new IllegalArgumentException("CPU " + cpu + " does not exist (0 to " + (MAX_CPUS - 1) + ")");
        }
        MemorySegment allowed = allowed(arena);
        if (!isSet(allowed, cpu)) {
            throw new IllegalArgumentException("CPU " + cpu + " is not available to this process (it may use "
                    + describe(allowed) + ")");
        }
        return allowed;
    }

    private static MemorySegment allowed(Arena arena) {
        MemorySegment allowed = arena.allocate(SET_BYTES, 8);
        int errno = Posix.getThreadAffinity(allowed);
        if (errno != 0) {
            throw new IllegalStateException("sched_getaffinity failed: errno " + errno);
        }
        return allowed;
    }

    private static void set(MemorySegment mask, String what) {
        int errno = Posix.setThreadAffinity(mask);
        if (errno != 0) {
            throw new IllegalStateException("sched_setaffinity failed " + what + ": errno " + errno);
        }
    }

    /** The CPUs the calling thread may run on, e.g. "0-1" or "0,2,4". */
    public static String allowedCpus() {
        try (Arena arena = Arena.ofConfined()) {
            return describe(allowed(arena));
        }
    }

    private static boolean isSet(MemorySegment set, int cpu) {
        return (set.get(JAVA_LONG, (cpu / 64) * 8L) & (1L << (cpu % 64))) != 0;
    }

    private static String describe(MemorySegment set) {
        StringBuilder b = new StringBuilder();
        int cpu = 0;
        while (cpu < MAX_CPUS) {
            if (!isSet(set, cpu)) {
                cpu++;
                continue;
            }
            int last = cpu;
            while (last + 1 < MAX_CPUS && isSet(set, last + 1)) {
                last++;
            }
            b.append(b.isEmpty() ? "" : ",").append(cpu).append(last > cpu ? "-" + last : "");
            cpu = last + 1;
        }
        return b.isEmpty() ? "none" : b.toString();
    }
}
