package dev.jrdma.bench;

import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Does touching native work requests and completions through the generated accessors allocate?
 * A send WR built once and re-posted with a new wr_id, a WR built from scratch, and the fields
 * a poll loop reads from an ibv_wc. Run with {@code -prof gc}: every method should show 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class WorkRequestBench {
    private Arena arena;
    private MemorySegment wr;
    private MemorySegment sge;
    private MemorySegment wc;
    private MemorySegment buffer;
    private long wrId;

    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        wr = arena.allocate(ibv_send_wr.layout());
        sge = arena.allocate(ibv_sge.layout());
        wc = arena.allocate(ibv_wc.layout());
        buffer = arena.allocate(4096, 4096);
        buildFromScratch();
        ibv_wc.status(wc, rdma_h.IBV_WC_SUCCESS());
        ibv_wc.byte_len(wc, 64);
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public MemorySegment repostWithNewWrId() {
        ibv_send_wr.wr_id(wr, ++wrId);
        return wr;
    }

    @Benchmark
    public MemorySegment buildFromScratch() {
        ibv_sge.addr(sge, buffer.address());
        ibv_sge.length(sge, 64);
        ibv_sge.lkey(sge, 0x1234);
        ibv_send_wr.wr_id(wr, ++wrId);
        ibv_send_wr.next(wr, MemorySegment.NULL);
        ibv_send_wr.sg_list(wr, sge);
        ibv_send_wr.num_sge(wr, 1);
        ibv_send_wr.opcode(wr, rdma_h.IBV_WR_RDMA_WRITE());
        ibv_send_wr.send_flags(wr, rdma_h.IBV_SEND_SIGNALED());
        MemorySegment rdma = ibv_send_wr.wr.rdma(ibv_send_wr.wr(wr));
        ibv_send_wr.wr.rdma.remote_addr(rdma, buffer.address() + 2048);
        ibv_send_wr.wr.rdma.rkey(rdma, 0x5678);
        return wr;
    }

    @Benchmark
    public long readCompletion() {
        return ibv_wc.wr_id(wc) + ibv_wc.status(wc) + ibv_wc.opcode(wc) + ibv_wc.byte_len(wc) + ibv_wc.qp_num(wc);
    }
}
