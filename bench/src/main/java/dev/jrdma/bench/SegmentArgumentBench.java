// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What does a pointer argument of a downcall cost, by the scope of its segment? For every
 * MemorySegment argument the linker keeps the segment's arena alive for the call: nothing for
 * the global scope, a counter for a confined arena, and an atomic increment and decrement for a
 * shared or automatic arena (where the data path's work requests and completions were
 * allocated). The callee is libc's {@code memcmp} with length 0, which returns at once; it has
 * two pointers like post_send's qp and wr and returns an int.
 */
public class SegmentArgumentBench extends BenchSettings {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MEMCMP = LINKER.downcallHandle(
            LINKER.defaultLookup().find("memcmp").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), Linker.Option.critical(false));
    /** The same function with the pointers declared as 64-bit integers (one register class on LP64 ABIs). */
    private static final MethodHandle MEMCMP_LONGS = LINKER.downcallHandle(
            LINKER.defaultLookup().find("memcmp").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    /** Address-less, as the ops-table calls are: the function comes as the first argument. */
    private static final MethodHandle POINTER_LONGS = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle POINTER = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG), Linker.Option.critical(false));
    private static final MemorySegment MEMCMP_FN = LINKER.defaultLookup().find("memcmp").orElseThrow();

    private Arena confined;
    private MemorySegment autoA;
    private MemorySegment autoB;
    private MemorySegment confinedA;
    private MemorySegment confinedB;
    private MemorySegment globalA;
    private MemorySegment globalB;
    /** 0, a field so the call is not folded. */
    private long length;

    @Setup
    public void setup() {
        autoA = Arena.ofAuto().allocate(64, 8);
        autoB = Arena.ofAuto().allocate(64, 8);
        confined = Arena.ofConfined();
        confinedA = confined.allocate(64, 8);
        confinedB = confined.allocate(64, 8);
        // Zero-length aliases in the global scope: what QueuePair and CompletionQueue pass.
        globalA = MemorySegment.ofAddress(autoA.address());
        globalB = MemorySegment.ofAddress(autoB.address());
    }

    @TearDown
    public void tearDown() {
        confined.close();
    }

    /** JMH's own per-operation cost, to subtract (large under emulation). */
    @Benchmark
    public long baseline() {
        return length;
    }

    @Benchmark
    public int autoArena() throws Throwable {
        return (int) MEMCMP.invokeExact(autoA, autoB, length);
    }

    @Benchmark
    public int confinedArena() throws Throwable {
        return (int) MEMCMP.invokeExact(confinedA, confinedB, length);
    }

    @Benchmark
    public int globalAlias() throws Throwable {
        return (int) MEMCMP.invokeExact(globalA, globalB, length);
    }

    @Benchmark
    public int longAddresses() throws Throwable {
        return (int) MEMCMP_LONGS.invokeExact(autoA.address(), autoB.address(), length);
    }

    @Benchmark
    public int functionPointerSegments() throws Throwable {
        return (int) POINTER.invokeExact(MEMCMP_FN, autoA, autoB, length);
    }

    @Benchmark
    public int functionPointerLongAddresses() throws Throwable {
        return (int) POINTER_LONGS.invokeExact(MEMCMP_FN, autoA.address(), autoB.address(), length);
    }
}
