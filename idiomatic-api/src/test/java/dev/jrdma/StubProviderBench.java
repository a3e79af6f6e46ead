// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;

/**
 * The binding's overhead on a real CPU (issue #29, gate 2): the public API's post and poll
 * against the stub provider, and the same stub functions called from C through the same ops
 * table ({@code *C} methods: a C loop of {@value #LOOP} calls, one JMH operation per call).
 * The difference per pair is what jrdma adds: the open/close guard's two atomic adds, the
 * state and request checks, and the FFM downcall; the {@code *Downcall} methods call the
 * binding's downcall alone (InlineVerbs, as the API does, without the API's checks and guard) to
 * split the FFM transition from the rest. The {@code *Prepared} methods post a
 * {@link PreparedSend} / {@link PreparedReceive}: the request checked once, each post testing
 * one guard word and the queue pair's state (issue #37); the {@code *Confined} methods post the
 * same requests prepared with {@code ofConfined}, which take no guard word, and
 * {@code pollEmptyConfined} a {@link PreparedPoll#ofConfined} poll. Run by {@code bench/stub-provider}; figures in
 * bench/README.md. Not a test: surefire finds no {@code @Test} here.
 */
public class StubProviderBench extends StubBenchSettings {
    static final int LOOP = 1000;

    private StubProvider.Fixture f;
    private SendRequest unsignalledSend;
    private SendRequest signalledSend;
    private ReceiveRequest receive;
    private PreparedSend preparedSend;
    private PreparedSend preparedSignalledSend;
    private PreparedReceive preparedReceive;
    private PreparedSend confinedSend;
    private PreparedReceive confinedReceive;
    private PreparedPoll confinedPoll;
    private PreparedPoll preparedPoll;
    private WorkCompletion wc;
    private long qp;
    private long sendCq;
    private MemorySegment postSendFn;
    private MemorySegment postRecvFn;
    private MemorySegment pollCqFn;
    private long badWr;
    private long wcAddress;

    /** For JMH, which instantiates the state. */
    public StubProviderBench() {}

    @Setup
    public void setUp() {
        f = StubProvider.open(1024, 4096);
        // One 64-byte SGE each: the WQE the stub writes is the same for Java and C (C posts the
        // very ibv_send_wr / ibv_recv_wr the request object built).
        unsignalledSend = new SendRequest().wrId(1).sge(f.mr(), 0, 64).signaled(false);
        signalledSend = new SendRequest().wrId(2).sge(f.mr(), 64, 64).signaled(true);
        receive = new ReceiveRequest().wrId(3).sge(f.mr(), 128, 64);
        wc = new WorkCompletion();
        qp = f.qpHandle().address();
        sendCq = f.sendCq().handle().address();
        postSendFn = InlineVerbs.postSendFunction(f.qpHandle());
        postRecvFn = InlineVerbs.postRecvFunction(f.qpHandle());
        pollCqFn = InlineVerbs.pollCqFunction(f.sendCq().handle());
        badWr = Arena.global().allocate(ValueLayout.ADDRESS).address();
        wcAddress = wc.address();
        // Prepared once through the API, as a re-post is; the C loops then post the same memory.
        f.qp().post(unsignalledSend);
        f.qp().post(receive);
        f.qp().post(signalledSend);
        if (f.sendCq().poll(wc) != 1 || wc.wrId() != 2) {
            throw new IllegalStateException("the stub provider did not complete the signalled send: " + wc);
        }
        // The same requests, prepared: the provider is handed the same structs (copies of them).
        preparedSend = PreparedSend.of(f.qp(), unsignalledSend);
        preparedSignalledSend = PreparedSend.of(f.qp(), signalledSend);
        preparedReceive = PreparedReceive.of(f.qp(), receive);
        preparedPoll = PreparedPoll.of(f.sendCq());
        // Scope.Thread: this runs on the benchmark's own thread, the one the confined copies belong to.
        confinedSend = PreparedSend.ofConfined(f.qp(), unsignalledSend);
        confinedReceive = PreparedReceive.ofConfined(f.qp(), receive);
        confinedPoll = PreparedPoll.ofConfined(f.sendCq());
    }

    @Benchmark
    public void postSendPrepared() {
        preparedSend.post();
    }

    @Benchmark
    public void postReceivePrepared() {
        preparedReceive.post();
    }

    /** The prepared send confined to this thread: no guard word, an owner and a closed test. */
    @Benchmark
    public void postSendConfined() {
        confinedSend.post();
    }

    @Benchmark
    public void postReceiveConfined() {
        confinedReceive.post();
    }

    @Benchmark
    public int pollEmptyConfined() {
        return confinedPoll.poll();
    }

    /** A signalled prepared send and the prepared poll that reads its completion, as a latency loop does. */
    @Benchmark
    public long sendAndPollPrepared() {
        preparedSignalledSend.post();
        if (preparedPoll.poll() != PreparedPoll.SUCCESS) {
            throw new IllegalStateException("no successful completion: " + preparedPoll.completion());
        }
        return preparedPoll.completion().wrId();
    }

    /** An empty CQ through a {@link PreparedPoll}: the busy-poll of a latency loop. */
    @Benchmark
    public int pollEmptyPrepared() {
        return preparedPoll.poll();
    }

    @Benchmark
    public void postSend() {
        f.qp().post(unsignalledSend);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public void postSendC() throws Throwable {
        check((long) StubProvider.HARNESS_POST_SEND.invokeExact(qp, unsignalledSend.address(), (long) LOOP), 0);
    }

    @Benchmark
    public int postSendDowncall() {
        return InlineVerbs.postSend(postSendFn, qp, unsignalledSend.address(), badWr);
    }

    @Benchmark
    public void postReceive() {
        f.qp().post(receive);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public void postReceiveC() throws Throwable {
        check((long) StubProvider.HARNESS_POST_RECV.invokeExact(qp, receive.address(), (long) LOOP), 0);
    }

    @Benchmark
    public int postReceiveDowncall() {
        return InlineVerbs.postRecv(postRecvFn, qp, receive.address(), badWr);
    }

    /** An empty CQ: the common case in a busy-poll loop. */
    @Benchmark
    public int pollEmpty() {
        return f.sendCq().poll(wc);
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public void pollEmptyC() throws Throwable {
        check((long) StubProvider.HARNESS_POLL_CQ.invokeExact(sendCq, (long) LOOP), 0);
    }

    @Benchmark
    public int pollEmptyDowncall() {
        return InlineVerbs.pollCq(pollCqFn, sendCq, 1, wcAddress);
    }

    /** A signalled send and the poll that reads its completion (into a WorkCompletion / struct ibv_wc). */
    @Benchmark
    public long sendAndPoll() {
        f.qp().post(signalledSend);
        f.sendCq().poll(wc);
        return wc.wrId();
    }

    @Benchmark
    @OperationsPerInvocation(LOOP)
    public void sendAndPollC() throws Throwable {
        check((long) StubProvider.HARNESS_SEND_AND_POLL.invokeExact(qp, signalledSend.address(), sendCq,
                (long) LOOP), LOOP);
    }

    private static void check(long got, long expected) {
        if (got != expected) {
            throw new IllegalStateException("the C harness returned " + got + ", expected " + expected);
        }
    }

}
