// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_cq;
import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.generated.ibv_qp;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The stub provider ({@code stub-provider.c}), compiled with gcc on first use and loaded, and the
 * public API objects built over its fake verbs objects through the package-private
 * {@code overStubProvider} seams: no device and no libibverbs call. The objects live for the JVM
 * (closing them would hand the fakes to libibverbs).
 */
final class StubProvider {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBRARY = compileAndLoad();

    static final MethodHandle OPEN_CONTEXT = handle("stub_open_context", FunctionDescriptor.of(ADDRESS));
    static final MethodHandle ALLOC_PD = handle("stub_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle CREATE_CQ = handle("stub_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle CREATE_QP = handle("stub_create_qp",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT));
    static final MethodHandle REG_MR = handle("stub_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle LAST_WQE = handle("stub_last_wqe", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle CQ_OVERRUNS = handle("stub_cq_overruns", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    // The C harness: loops of n calls through the ops table, timed as one JMH operation per call.
    static final MethodHandle HARNESS_POST_SEND = handle("stub_harness_post_send",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle HARNESS_POST_RECV = handle("stub_harness_post_recv",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle HARNESS_POLL_CQ = handle("stub_harness_poll_cq",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    static final MethodHandle HARNESS_SEND_AND_POLL = handle("stub_harness_send_and_poll",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /** Byte offsets in {@code struct stub_wqe} (stub-provider.c). */
    static final long WQE_WR_ID = 0;
    static final long WQE_OPCODE = 8;
    static final long WQE_FLAGS = 12;
    static final long WQE_NUM_SGE = 16;
    static final long WQE_IMM_DATA = 20;
    static final long WQE_SGE0_ADDR = 24;
    static final long WQE_SGE0_LENGTH = 32;
    static final long WQE_SGE0_LKEY = 36;
    private static final long WQE_SIZE = 24 + 4 * 16;

    private StubProvider() {}

    /** One context, PD, send and receive CQ, RC queue pair in RTS and a registered buffer. */
    record Fixture(Context context, ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue receiveCq,
                   QueuePair qp, MemoryRegion mr, MemorySegment qpHandle) {}

    /** A fresh set of stub objects; {@code depth} sizes the CQs and work queues. */
    static Fixture open(int depth, int bufferBytes) {
        try {
            MemorySegment ctx = check((MemorySegment) OPEN_CONTEXT.invokeExact(), "stub_open_context");
            Context context = Context.overStubProvider(
                    new RdmaDevice("stub0", 0, NodeType.CA, TransportType.IB), ctx);
            MemorySegment pdHandle = check((MemorySegment) ALLOC_PD.invokeExact(ctx), "stub_alloc_pd")
                    .reinterpret(ibv_pd.layout().byteSize());
            ProtectionDomain pd = ProtectionDomain.overStubProvider(context, pdHandle);
            CompletionQueue sendCq = cq(context, ctx, depth);
            CompletionQueue receiveCq = cq(context, ctx, depth);
            MemorySegment qpHandle = check((MemorySegment) CREATE_QP.invokeExact(pdHandle, sendCq.handle(),
                    receiveCq.handle(), depth, 0), "stub_create_qp").reinterpret(ibv_qp.layout().byteSize());
            QueuePair.Builder builder = new QueuePair.Builder(pd, QueuePairType.RC).sendCompletionQueue(sendCq)
                    .receiveCompletionQueue(receiveCq);
            QueuePair qp = QueuePair.overStubProvider(builder, qpHandle,
                    new QueuePairCapabilities(depth, depth, 4, 4, 0));
            MemorySegment buffer = Arena.global().allocate(bufferBytes, 64);
            MemorySegment mrHandle = check((MemorySegment) REG_MR.invokeExact(pdHandle, buffer, (long) bufferBytes),
                    "stub_reg_mr").reinterpret(ibv_mr.layout().byteSize());
            MemoryRegion mr = MemoryRegion.overStubProvider(pd, mrHandle, buffer);
            return new Fixture(context, pd, sendCq, receiveCq, qp, mr, qpHandle);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The last WQE the stub wrote to the fixture's send or receive queue; empty (NULL) when none. */
    static MemorySegment lastWqe(Fixture f, boolean send) {
        try {
            return ((MemorySegment) LAST_WQE.invokeExact(f.qpHandle(), send ? 1 : 0)).reinterpret(WQE_SIZE);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Completions the stub CQ dropped because nobody polled them. */
    static long overruns(CompletionQueue cq) {
        try {
            return (long) CQ_OVERRUNS.invokeExact(cq.handle());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static CompletionQueue cq(Context context, MemorySegment ctx, int depth) throws Throwable {
        MemorySegment handle = check((MemorySegment) CREATE_CQ.invokeExact(ctx, depth), "stub_create_cq")
                .reinterpret(ibv_cq.layout().byteSize());
        return CompletionQueue.overStubProvider(context, handle);
    }

    private static MemorySegment check(MemorySegment s, String what) {
        if (s.address() == 0) {
            throw new OutOfMemoryError(what + " returned NULL");
        }
        return s;
    }

    static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LIBRARY.find(name).orElseThrow(
                () -> new IllegalStateException("the stub provider has no symbol " + name));
        return LINKER.downcallHandle(symbol, descriptor);
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    /** gcc -O2 on the installed verbs.h, as the layout probe is built (bindings' LayoutTest). */
    private static SymbolLookup compileAndLoad() {
        try {
            Path dir = Files.createTempDirectory("jrdma-stub-provider");
            Path src = dir.resolve("stub-provider.c");
            Path lib = dir.resolve("libjrdma-stub-provider.so");
            try (InputStream in = StubProvider.class.getResourceAsStream("stub-provider.c")) {
                if (in == null) {
                    throw new IllegalStateException("stub-provider.c is missing from the test class path");
                }
                Files.copy(in, src);
            }
            List<String> command = List.of("gcc", "-std=gnu11", "-O2", "-Wall", "-Werror", "-fPIC", "-shared",
                    "-o", lib.toString(), src.toString());
            Process gcc;
            try {
                gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
            } catch (IOException e) {
                throw new IllegalStateException("gcc is needed to build the stub provider but could not be run ("
                        + e.getMessage() + "); install gcc and libibverbs-dev (scripts/setup does)", e);
            }
            String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(120, TimeUnit.SECONDS)) {
                gcc.destroyForcibly();
                throw new IllegalStateException("gcc did not finish the stub provider within 120 s");
            }
            if (gcc.exitValue() != 0) {
                throw new IllegalStateException("gcc failed (exit " + gcc.exitValue() + ") on the stub provider"
                        + " (needs libibverbs-dev for infiniband/verbs.h):\n" + output);
            }
            lib.toFile().deleteOnExit();
            src.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return SymbolLookup.libraryLookup(lib, Arena.global());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the stub provider", e);
        }
    }
}
