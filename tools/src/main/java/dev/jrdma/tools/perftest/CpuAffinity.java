// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.shim.Posix;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * --pin-cpu and --pin_cores: binds the calling thread, and only it, to one CPU or a set of them
 * with Linux's sched_setaffinity(2) (pid 0 is the calling thread). {@code taskset} binds a whole process, and for a JVM that
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

        Pinned(long[] before) {
            this.before = before;
        }

        @Override
        public void close() {
            int errno = restore(before);
            if (errno != 0) {
                throw new IllegalStateException("sched_setaffinity failed restoring the CPUs of the thread: errno " + errno);
            }
        }
    }

    /** Gives the calling thread back the CPUs {@code before} (a cpu_set_t's words); {@return the errno, 0 on success} */
    private static int restore(long[] before) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            MemorySegment.copy(before, 0, mask, JAVA_LONG, 0, before.length);
            return Posix.setThreadAffinity(mask);
        }
    }

    /**
     * Binds the calling thread to {@code cpu}; throws IllegalArgumentException naming the CPU and
     * the ones this thread may use when {@code cpu} is not among them. Threads that the calling
     * thread starts afterwards inherit the binding (Linux copies the mask at clone(2)), so bind
     * after starting helper threads.
     */
    public static Pinned pinCurrentThread(int cpu) {
        return pinCurrentThread(List.of(cpu));
    }

    /**
     * Binds the calling thread to {@code cpus} (--pin_cores); as {@link #pinCurrentThread(int)},
     * naming the first CPU this thread may not use.
     */
    public static Pinned pinCurrentThread(List<Integer> cpus) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allowed = available(arena, cpus);
            long[] before = allowed.toArray(JAVA_LONG);
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            for (int cpu : cpus) {
                long word = (cpu / 64) * 8L;
                mask.set(JAVA_LONG, word, mask.get(JAVA_LONG, word) | 1L << (cpu % 64));
            }
            set(mask, "binding the thread to CPU " + describe(mask));
            return new Pinned(before);
        }
    }

    /**
     * Checks, without binding anything, that the calling thread could be bound to {@code cpu}: the
     * same IllegalArgumentException as {@link #pinCurrentThread} otherwise. A caller that binds
     * late (after starting other threads, which would inherit the binding) checks early with this.
     */
    public static void checkAvailable(int cpu) {
        checkAvailable(List.of(cpu));
    }

    /** {@link #checkAvailable(int)} for each of {@code cpus}. */
    public static void checkAvailable(List<Integer> cpus) {
        try (Arena arena = Arena.ofConfined()) {
            available(arena, cpus);
        }
    }

    /**
     * perftest 26.04's {@code --pin_cores} list: CPUs and ranges separated by commas ("3",
     * "0,2", "0-3", "0-3,8,12-15"), ascending and without repeats.
     *
     * @throws IllegalArgumentException naming what is wrong (a range that runs backwards, a CPU
     *                                  beyond {@link #MAX_CPUS}, a character that is no part of a list)
     */
    public static List<Integer> parseList(String list) {
        java.util.TreeSet<Integer> cpus = new java.util.TreeSet<>();
        if (list.isEmpty()) {
            throw new IllegalArgumentException("an empty CPU list");
        }
        for (String part : list.split(",", -1)) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,4})(?:-(\\d{1,4}))?").matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("'" + part + "' in '" + list + "' is not a CPU or a range (e.g. 0-3,8)");
            }
            int first = Integer.parseInt(m.group(1));
            int last = m.group(2) == null ? first : Integer.parseInt(m.group(2));
            if (first > last) {
                throw new IllegalArgumentException("range " + part + " runs backwards");
            }
            if (last >= MAX_CPUS) {
                throw new IllegalArgumentException("CPU " + last + " does not exist (0 to " + (MAX_CPUS - 1) + ")");
            }
            for (int cpu = first; cpu <= last; cpu++) {
                cpus.add(cpu);
            }
        }
        return List.copyOf(cpus);
    }

    private static MemorySegment available(Arena arena, List<Integer> cpus) {
        MemorySegment allowed = allowed(arena);
        for (int cpu : cpus) {
            if (cpu < 0 || cpu >= MAX_CPUS) {
                throw new IllegalArgumentException("CPU " + cpu + " does not exist (0 to " + (MAX_CPUS - 1) + ")");
            }
            if (!isSet(allowed, cpu)) {
                throw new IllegalArgumentException("CPU " + cpu + " is not available to this process (it may use "
                        + describe(allowed) + ")");
            }
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
