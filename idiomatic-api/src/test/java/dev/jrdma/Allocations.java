// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.lang.reflect.Method;

/**
 * The current thread's allocated bytes ({@code com.sun.management.ThreadMXBean}), for
 * zero-allocation assertions. Through reflection because the tests compile inside module
 * dev.jrdma, which does not read jdk.management (they run on the class path, where the call is
 * accessible). Reflection itself allocates (the boxed result, the argument array); that cost
 * is measured with nothing in between and subtracted, afresh at each {@link #since}: once the
 * JIT compiles the reflective call (escape analysis can drop the box) it costs less than it did
 * interpreted, and a cost measured once at class initialisation then made a loop that allocated
 * nothing read -24 bytes (CI, 2026-11-28, two runs in five).
 */
final class Allocations {
    private static final Object THREADS;
    private static final Method ALLOCATED;

    static {
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Allocations() {}

    static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** One step of a loop that should allocate nothing; returns something to sum, so that the JIT keeps the work. */
    interface Step {
        long run(int i);
    }

    /** What {@link #steadyState} found: the last pass's allocated bytes, the steps' sum, and the passes run. */
    record Steady(long bytes, long sum, int passes) {}

    /**
     * Runs passes of 20,000 steps ({@code i} from 0) until a pass allocates nothing, at most 12:
     * C2 may still compile, or deoptimise, in the first passes on a loaded host, while an
     * allocation per step shows in every pass.
     */
    static Steady steadyState(Step step) {
        long bytes = -1;
        long sum = 0;
        int passes = 0;
        for (; passes < 12 && bytes != 0; passes++) {
            // The readings' own cost taken in this method, as compiled now, like the two around
            // the loop: a reading in another method (since) can be compiled otherwise (its box
            // allocated, or scalar-replaced), which read as -24 bytes here.
            long empty = allocatedBytes();
            long reading = allocatedBytes() - empty;
            long before = allocatedBytes();
            for (int i = 0; i < 20_000; i++) {
                sum += step.run(i);
            }
            bytes = allocatedBytes() - before - reading;
        }
        return new Steady(bytes, sum, passes);
    }

    /** Bytes this thread allocated since {@code before} (a value of {@link #allocatedBytes()}), measuring cost excluded. */
    static long since(long before) {
        long after = allocatedBytes();
        // Two readings with nothing between them cost what before..after's two readings cost,
        // compiled as they are now.
        long reading = allocatedBytes() - after;
        return after - before - reading;
    }
}
