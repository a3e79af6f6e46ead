// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bench;

import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Does touching native work requests and completions allocate? Through the public API users
 * use ({@code api*}: {@link SendRequest}, {@link ReceiveRequest}, {@link WorkCompletion}) and
 * through the generated accessors the API is built on ({@code raw*}): a WR re-posted with a
 * new wr_id, a WR (re)built field by field, and the fields a poll loop reads. Run with
 * {@code -prof gc}: everything but {@code rawBuildFromScratch} shows 0 B/op (jextract's nested
 * union accessors return slices, which escape; the API writes those fields at fixed offsets).
 * Posting itself needs a device: see {@link DeviceDataPathBench}.
 */
public class WorkRequestBench extends BenchSettings {
    private Arena arena;
    private MemorySegment wr;
    private MemorySegment sge;
    private MemorySegment wc;
    private MemorySegment buffer;
    private long wrId;
    private SendRequest apiSend;
    private ReceiveRequest apiRecv;
    private WorkCompletion apiWc;

    @Setup
    public void setup() {
        arena = Arena.ofConfined();
        wr = arena.allocate(ibv_send_wr.layout());
        sge = arena.allocate(ibv_sge.layout());
        wc = arena.allocate(ibv_wc.layout());
        buffer = arena.allocate(4096, 4096);
        rawBuildFromScratch();
        apiSend = new SendRequest();
        apiRecv = new ReceiveRequest();
        apiWc = new WorkCompletion();
        ibv_wc.status(wc, rdma_h.IBV_WC_SUCCESS());
        ibv_wc.byte_len(wc, 64);
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public MemorySegment rawRepostWithNewWrId() {
        ibv_send_wr.wr_id(wr, ++wrId);
        return wr;
    }

    @Benchmark
    public MemorySegment rawBuildFromScratch() {
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
    public long rawReadCompletion() {
        return ibv_wc.wr_id(wc) + ibv_wc.status(wc) + ibv_wc.opcode(wc) + ibv_wc.byte_len(wc) + ibv_wc.qp_num(wc);
    }

    /** Everything a bandwidth loop changes between posts: wr_id and the signalled flag. */
    @Benchmark
    public SendRequest apiRepostWithNewWrId() {
        long id = ++wrId;
        return apiSend.wrId(id).signaled((id & 63) == 0);
    }

    /** Re-targeting a request: opcode, remote address/length/rkey, flags, immediate data. */
    @Benchmark
    public SendRequest apiRebuild() {
        long id = ++wrId;
        return apiSend.wrId(id).opcode((id & 1) == 0 ? SendOpcode.RDMA_WRITE : SendOpcode.RDMA_WRITE_WITH_IMM)
                .remote(buffer.address() + 2048, 64, 0x5678).signaled(true).inline((id & 2) == 0)
                .immediateData((int) id);
    }

    @Benchmark
    public ReceiveRequest apiReceiveWithNewWrId() {
        return apiRecv.wrId(++wrId);
    }

    @Benchmark
    public long apiReadCompletion() {
        return apiWc.wrId() + apiWc.status().ordinal() + apiWc.opcode().ordinal() + apiWc.byteLength()
                + apiWc.qpNumber() + (apiWc.isSuccess() ? 1 : 0);
    }
}
