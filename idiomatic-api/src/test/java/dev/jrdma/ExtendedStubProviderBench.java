// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.shim.ExtendedPostVerbs;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;

/**
 * The extended post path against the stub provider (issue #35's figure next to
 * {@link StubProviderBench#postSend}): one unsignalled send of one 64-byte SGE as a batch of
 * its own through {@link ExtendedSendQueue} (start, wr_id, send, set_sge, complete: four
 * downcalls), the same batch prepared once ({@link PreparedExtendedSend}, shared, and confined on an owned send
 * queue), and its C twin
 * ({@code *C}: the same five steps through verbs.h's inline {@code ibv_wr_*}, a loop of
 * {@value StubProviderBench#LOOP}). Run by
 * {@code bench/stub-provider 'ExtendedStubProviderBench|StubProviderBench.postSend'}.
 */
public class ExtendedStubProviderBench extends StubBenchSettings {
    static final MethodHandle CREATE_QP_EX = StubProvider.handle("stub_create_qp_ex",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle LAST_WQE_EX = StubProvider.handle("stub_last_wqe_ex",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle HARNESS_WR_SEND = StubProvider.handle("stub_harness_wr_send",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG));

    /** The stub fixture plus a queue pair with {@code struct ibv_qp_ex} and its poster. */
    record Fixture(StubProvider.Fixture base, QueuePair qp, ExtendedSendQueue sq, MemorySegment qpEx) {}

    static Fixture open(int depth) {
        return open(depth, 0, SendOp.SEND);
    }

    /** As {@link #open(int)}, the queue pair created for {@code ops} (the stub has their builders), 64 B inline. */
    static Fixture open(int depth, SendOp... ops) {
        return open(depth, 64, ops);
    }

    private static Fixture open(int depth, int maxInline, SendOp... ops) {
        StubProvider.Fixture base = StubProvider.open(depth, 4096);
        try {
            MemorySegment qpEx = (MemorySegment) CREATE_QP_EX.invokeExact(base.pd().handle(), base.sendCq().handle(),
                    base.receiveCq().handle(), depth);
            if (qpEx.address() == 0) {
                throw new OutOfMemoryError("stub_create_qp_ex returned NULL");
            }
            // The ibv_qp is the first member of the ibv_qp_ex (qp_base).
            MemorySegment qpHandle = qpEx.reinterpret(ibv_qp.layout().byteSize());
            QueuePair.Builder builder = new QueuePair.Builder(base.pd(), QueuePairType.RC)
                    .sendCompletionQueue(base.sendCq()).receiveCompletionQueue(base.receiveCq()).extendedPost(ops);
            QueuePair qp = QueuePair.overStubProvider(builder, qpHandle, new QueuePairCapabilities(depth, depth, 4, 4, maxInline));
            return new Fixture(base, qp, new ExtendedSendQueue(qp, qpEx.address()), qpEx);
        } catch (Throwable t) {
            throw StubProvider.rethrow(t);
        }
    }

    /** The last WQE the stub's extended queue pair wrote. */
    static MemorySegment lastWqe(Fixture f) {
        try {
            return ((MemorySegment) LAST_WQE_EX.invokeExact(f.qpEx())).reinterpret(24 + 4 * 16);
        } catch (Throwable t) {
            throw StubProvider.rethrow(t);
        }
    }

    static final MethodHandle LAST_REMOTE_EX = StubProvider.handle("stub_last_remote_ex",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    /** Offsets in the stub's struct stub_remote. */
    static final long REMOTE_ADDR = 0;
    static final long REMOTE_COMPARE_ADD = 8;
    static final long REMOTE_SWAP = 16;
    static final long REMOTE_RKEY = 24;

    /** What the stub's last remote builder set (struct stub_remote). */
    static MemorySegment lastRemote(Fixture f) {
        try {
            return ((MemorySegment) LAST_REMOTE_EX.invokeExact(f.qpEx())).reinterpret(48);
        } catch (Throwable t) {
            throw StubProvider.rethrow(t);
        }
    }

    private Fixture f;
    private MemoryRegion mr;
    private long qpEx;
    private long sgeAddress;
    private int lkey;
    private long wrId;
    private ExtendedPostFunctions functions;
    private PreparedExtendedSend prepared;
    private Fixture owned;
    private PreparedExtendedSend confined;

    /** For JMH, which instantiates the state. */
    public ExtendedStubProviderBench() {}

    @Setup
    public void setUp() {
        f = open(1024);
        mr = f.base().mr();
        qpEx = f.qpEx().address();
        sgeAddress = mr.address();
        lkey = mr.lkey();
        f.sq().signaled(false);
        functions = ExtendedPostFunctions.of(qpEx);
        prepared = PreparedExtendedSend.of(f.sq(), new SendRequest().sge(mr, 0, 64).signaled(false));
        // JMH runs a Scope.Thread state's setup on the thread that runs its benchmark. A queue pair
        // of its own, whose send queue that thread owns (as the CLI's loops do): the rows above
        // keep measuring the claim.
        owned = open(1024);
        MemoryRegion ownedMr = owned.base().mr();
        confined = PreparedExtendedSend.ofConfined(owned.sq().ownSendQueue(),
                new SendRequest().sge(ownedMr, 0, 64).signaled(false));
    }

    @Benchmark
    public void postExtendedSend() {
        f.sq().start().wrId(wrId++).send().sge(mr, 0, 64).complete();
    }

    /** The same batch prepared once ({@link PreparedExtendedSend}): the guard, the send queue claim and the downcalls. */
    @Benchmark
    public void postExtendedSendPrepared() {
        prepared.wrId(wrId++).post();
    }

    /**
     * The same, prepared with ofConfined on a send queue this thread owns (the CLI's form): no
     * guard word, no claim; two plain tests and the downcall.
     */
    @Benchmark
    public void postExtendedSendConfined() {
        confined.wrId(wrId++).post();
    }

    /** The binding's downcalls alone (ExtendedPostVerbs, as the API makes them), without the API's checks and guard. */
    @Benchmark
    public void postExtendedSendDowncalls() {
        ExtendedPostFunctions fn = functions;
        ExtendedPostVerbs.wrStart(fn.start(), qpEx);
        ExtendedPostVerbs.setRequest(qpEx, wrId++, 0);
        ExtendedPostVerbs.wrSend(fn.send(), qpEx);
        ExtendedPostVerbs.wrIntLongInt(fn.setSge(), qpEx, lkey, sgeAddress, 64);
        ExtendedPostVerbs.wrComplete(fn.complete(), qpEx);
    }

    @Benchmark
    @OperationsPerInvocation(StubProviderBench.LOOP)
    public void postExtendedSendC() throws Throwable {
        long failed = (long) HARNESS_WR_SEND.invokeExact(qpEx, lkey, sgeAddress, 64, (long) StubProviderBench.LOOP);
        if (failed != 0) {
            throw new IllegalStateException(failed + " of the C loop's completes failed");
        }
    }
}
