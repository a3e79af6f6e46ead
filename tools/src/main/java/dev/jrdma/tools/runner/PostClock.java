// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.jrdma.bindings.shim.ExecutablePage;

/**
 * The clock the measurement loops stamp their posts (and the bandwidth loops their completions)
 * with: perftest's, the CPU's time-stamp counter ({@code get_cycles()}: {@code rdtsc}) where the
 * kernel keeps its own clock on that counter, else {@link System#nanoTime()}. A loop stores
 * {@link #now()} as it is and converts its stamps to nanoseconds after the loop: a run reads
 * {@link Mark}s, the counter and {@code System.nanoTime()} together, at its start and its end,
 * and maps the stamps linearly between them ({@link #toNanos}). perftest divides by its CPU-MHz
 * estimate instead, which under emulation is now and then far off.
 *
 * <p>Why: {@code System.nanoTime()} is C2's call into the JVM ({@code os::javaTimeNanos}),
 * libc's {@code clock_gettime} and the vDSO's: ~78 user-mode instructions per read under
 * perf-gate's count, once per post in every latency loop and per message in write_bw, where
 * perftest's {@code rdtsc} is 3 (research/notes/2026-11-28-latency-loop-instructions.md). Java
 * has no cycle counter, so the counter is four instructions of x86-64 machine code
 * ({@code rdtsc; shl rdx, 32; or rax, rdx; ret}) in a page of their own, read-only and
 * executable, called as a critical downcall (it neither blocks nor calls back).
 *
 * <p>When the counter is not used (nothing else changes; {@link #counter()} says which): another
 * architecture or OS; the kernel's clocksource is not {@code tsc} (then the kernel itself does not
 * trust the counter to be constant-rate and synchronized across CPUs, e.g. kvm-clock or HPET
 * guests); {@code prctl(PR_GET_TSC)} says that {@code rdtsc} would fault in this process (a
 * sandbox's {@code PR_TSC_SIGSEGV}, inherited from the parent); mapping executable memory is
 * refused (W^X policies); or {@code -Djrdma.postClock=nanoTime}.
 */
final class PostClock {
    /** {@code rdtsc; shl $32, %rdx; or %rdx, %rax; ret}. */
    private static final byte[] RDTSC = {0x0f, 0x31, 0x48, (byte) 0xc1, (byte) 0xe2, 0x20, 0x48, 0x09, (byte) 0xd0,
        (byte) 0xc3};
    private static final int PR_GET_TSC = 25;
    private static final int PR_TSC_ENABLE = 1;

    /** Why the counter is not used, or null when it is. */
    private static final String WHY_NOT;
    /** The counter's downcall, or null: a constant, so that C2 compiles {@link #now()} to one path. */
    private static final MethodHandle COUNTER;

    static {
        String[] why = new String[1];
        COUNTER = counterOrNull(System.getProperty("jrdma.postClock", ""), why);
        WHY_NOT = why[0];
    }

    private PostClock() {
    }

    /** A stamp: the counter's ticks, or System.nanoTime()'s nanoseconds without it. */
    static long now() {
        MethodHandle c = COUNTER;
        if (c == null) {
            return System.nanoTime();
        }
        try {
            return (long) c.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("the time-stamp counter", t);
        }
    }

    /** {@return what the stamps are: "the time-stamp counter (rdtsc)", or "System.nanoTime (why)"} */
    static String counter() {
        return COUNTER != null ? "the time-stamp counter (rdtsc)" : "System.nanoTime (" + WHY_NOT + ")";
    }

    /** Whether stamps are counter ticks (to convert) rather than nanoseconds. */
    static boolean ticks() {
        return COUNTER != null;
    }

    /** The stamp clock and System.nanoTime() read together: one end of a run's conversion. */
    record Mark(long stamp, long nanos) {
        static Mark now() {
            long stamp = PostClock.now();
            return new Mark(stamp, System.nanoTime());
        }
    }

    /**
     * Converts {@code stamps} taken between {@code start} and {@code end} to nanoseconds on
     * System.nanoTime()'s scale, in place; 0 means "not recorded" (the bandwidth loops time some
     * messages only) and stays 0. Nothing to do when the stamps are nanoseconds already.
     */
    static void toNanos(long[] stamps, Mark start, Mark end) {
        if (!ticks() || stamps == null) {
            return;
        }
        convert(stamps, start, end);
    }

    /** The linear map of {@link #toNanos}, whatever the clock (package-private for its test). */
    static void convert(long[] stamps, Mark start, Mark end) {
        long ticks = end.stamp() - start.stamp();
        double nanosPerTick = ticks > 0 ? (end.nanos() - start.nanos()) / (double) ticks : 0;
        for (int i = 0; i < stamps.length; i++) {
            if (stamps[i] != 0) {
                stamps[i] = start.nanos() + Math.round((stamps[i] - start.stamp()) * nanosPerTick);
            }
        }
    }

    private static MethodHandle counterOrNull(String choice, String[] why) {
        if (choice.equals("nanoTime")) {
            why[0] = "-Djrdma.postClock=nanoTime";
            return null;
        }
        String arch = System.getProperty("os.arch", "");
        if (!System.getProperty("os.name", "").equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            why[0] = "no time-stamp counter read on " + System.getProperty("os.name") + "/" + arch;
            return null;
        }
        String source = clocksource();
        if (!source.equals("tsc")) {
            why[0] = "the kernel's clocksource is " + source + ", not tsc";
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            MethodHandle prctl = linker.downcallHandle(libc.find("prctl").orElseThrow(),
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.firstVariadicArg(1));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mode = arena.allocate(JAVA_INT);
                int rc = (int) prctl.invokeExact(PR_GET_TSC, mode);
                if (rc != 0 || mode.get(JAVA_INT, 0) != PR_TSC_ENABLE) {
                    why[0] = "rdtsc is not enabled for this process (prctl PR_GET_TSC)";
                    return null;
                }
            }
            MemorySegment page;
            try {
                page = ExecutablePage.of(RDTSC);
            } catch (IllegalStateException e) {
                why[0] = e.getMessage();
                return null;
            }
            MethodHandle counter = linker.downcallHandle(page, FunctionDescriptor.of(JAVA_LONG),
                    Linker.Option.critical(false));
            long first = (long) counter.invokeExact();
            long second = (long) counter.invokeExact();
            if (first <= 0 || second < first) {
                why[0] = "the time-stamp counter read " + first + " then " + second;
                return null;
            }
            return counter;
        } catch (Throwable t) {
            why[0] = "setting up the counter failed: " + t;
            return null;
        }
    }

    private static String clocksource() {
        try {
            return Files.readString(Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource"))
                    .strip().toLowerCase(Locale.ROOT);
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
