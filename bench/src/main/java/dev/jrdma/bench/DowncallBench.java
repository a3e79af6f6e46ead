// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bench;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What does the data path's dispatch cost, without a device? The inline verbs (post_send,
 * poll_cq) call a function pointer read from the ops table in struct ibv_context on every call;
 * this compares that against a downcall to a constant symbol, with and without
 * {@code Linker.Option.critical} and errno capture. The callee is libibverbs'
 * {@code ibv_rate_to_mult}, a switch over its int argument returning an int (post_send and
 * poll_cq also return int), so the figures are the cost of the call itself.
 */
public class DowncallBench extends BenchSettings {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor INT_INT = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
    private static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static final MethodHandle CONSTANT = rdma_h.ibv_rate_to_mult$handle();
    private static final MethodHandle CONSTANT_CRITICAL =
            LINKER.downcallHandle(rdma_h.ibv_rate_to_mult$address(), INT_INT, Linker.Option.critical(false));
    private static final MethodHandle CONSTANT_ERRNO = LINKER.downcallHandle(rdma_h.ibv_rate_to_mult$address(),
            INT_INT, Linker.Option.captureCallState("errno"));
    private static final MethodHandle POINTER = LINKER.downcallHandle(INT_INT);
    private static final MethodHandle POINTER_CRITICAL = LINKER.downcallHandle(INT_INT, Linker.Option.critical(false));

    private Arena arena;
    /** Stands in for struct ibv_context: the function pointer sits at a fixed offset in native memory. */
    private long opsTableSlot;
    private MemorySegment errnoState;
    /** IBV_RATE_10_GBPS; a field, not a constant, so the call is not folded. */
    private int rate = 3;

    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        MemorySegment table = arena.allocate(64, 8);
        table.set(ADDRESS, 40, rdma_h.ibv_rate_to_mult$address());
        opsTableSlot = table.address() + 40;
        errnoState = arena.allocate(Linker.Option.captureStateLayout());
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public int constantSymbol() throws Throwable {
        return (int) CONSTANT.invokeExact(rate);
    }

    @Benchmark
    public int constantSymbolCritical() throws Throwable {
        return (int) CONSTANT_CRITICAL.invokeExact(rate);
    }

    @Benchmark
    public int constantSymbolErrnoCapture() throws Throwable {
        return (int) CONSTANT_ERRNO.invokeExact(errnoState, rate);
    }

    /** The InlineVerbs path: load the pointer from the "ops table", then an address-less downcall. */
    @Benchmark
    public int functionPointerFromStruct() throws Throwable {
        long fn = MEMORY.get(JAVA_LONG, opsTableSlot);
        return (int) POINTER.invokeExact(MemorySegment.ofAddress(fn), rate);
    }

    @Benchmark
    public int functionPointerFromStructCritical() throws Throwable {
        long fn = MEMORY.get(JAVA_LONG, opsTableSlot);
        return (int) POINTER_CRITICAL.invokeExact(MemorySegment.ofAddress(fn), rate);
    }
}
