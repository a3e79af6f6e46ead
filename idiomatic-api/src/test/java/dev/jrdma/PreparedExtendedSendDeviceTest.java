// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.ExtendedLoopback.Completion;
import dev.jrdma.testing.DeviceTest;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PreparedExtendedSend} on rxe: sends (inline, with immediate data), RDMA writes at
 * changing remote offsets, reads, fetch-and-add and compare-and-swap, UD sends with their
 * destination, each posted several times from one
 * preparation, with the bytes checked at the other end; closing the region or the queue pair
 * makes the next post throw, and a batch this thread left open makes a post refuse instead of
 * spinning in the provider's {@code wr_start}.
 */
@DeviceTest
class PreparedExtendedSendDeviceTest {
    private static final SendOp[] RC_OPS = {SendOp.SEND, SendOp.SEND_WITH_IMM, SendOp.RDMA_WRITE,
        SendOp.RDMA_WRITE_WITH_IMM, SendOp.RDMA_READ, SendOp.ATOMIC_CMP_AND_SWP, SendOp.ATOMIC_FETCH_AND_ADD};

    private static void fill(MemorySegment segment, int seed) {
        for (int i = 0; i < segment.byteSize(); i++) {
            segment.set(JAVA_BYTE, i, (byte) (i * 7 + seed));
        }
    }

    private static byte[] bytes(MemoryRegion mr, long offset, int length) {
        return mr.segment().asSlice(offset, length).toArray(JAVA_BYTE);
    }

    @Test
    void sendsWritesReadsAndAtomicsPostedFromOnePreparation() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            fill(lo.memA.segment().asSlice(0, 8192), 5);
            fill(lo.memB.segment().asSlice(6144, 256), 9);
            RemoteMemory remote = lo.memB.remote();

            // SEND_WITH_IMM, inline (ibv_wr_set_inline_data), twice with a new wr_id, length and immediate.
            lo.b.post(new ReceiveRequest().wrId(101).sge(lo.memB, 0, 64));
            lo.b.post(new ReceiveRequest().wrId(102).sge(lo.memB, 64, 64));
            try (PreparedExtendedSend send = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(1)
                    .opcode(SendOpcode.SEND_WITH_IMM).immediateData(7).sge(lo.memA, 0, 48).inline(true))) {
                send.post();
                send.wrId(2).length(20).immediateData(8).post();
                List<Completion> all = lo.take(4);
                assertEquals(WorkCompletionStatus.SUCCESS, ExtendedLoopback.byId(all, 1).status());
                assertEquals(WorkCompletionStatus.SUCCESS, ExtendedLoopback.byId(all, 2).status());
                Completion first = ExtendedLoopback.byId(all, 101);
                assertEquals(48, first.byteLength());
                assertEquals(7, first.immediate());
                Completion second = ExtendedLoopback.byId(all, 102);
                assertEquals(20, second.byteLength());
                assertEquals(8, second.immediate());
                assertArrayEquals(bytes(lo.memA, 0, 48), bytes(lo.memB, 0, 48));
                assertArrayEquals(bytes(lo.memA, 0, 20), bytes(lo.memB, 64, 20));
            }

            // RDMA_WRITE of 256 bytes at remote offsets 1024 and 2048 (remote memory given from 1024).
            try (PreparedExtendedSend write = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(3)
                    .opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 256, 256)
                    .remote(remote.address() + 1024, 4096, remote.rkey()))) {
                write.post();
                write.wrId(4).remoteOffset(1024).post();
                assertThrows(IndexOutOfBoundsException.class, () -> write.remoteOffset(4096 - 255));
                List<Completion> all = lo.take(2);
                assertEquals(WorkCompletionOpcode.RDMA_WRITE, ExtendedLoopback.byId(all, 3).opcode());
                assertEquals(WorkCompletionStatus.SUCCESS, ExtendedLoopback.byId(all, 4).status());
                assertArrayEquals(bytes(lo.memA, 256, 256), bytes(lo.memB, 1024, 256));
                assertArrayEquals(bytes(lo.memA, 256, 256), bytes(lo.memB, 2048, 256));
            }

            // RDMA_READ of the peer's bytes at 6144 into memA at 4096.
            try (PreparedExtendedSend read = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(5)
                    .opcode(SendOpcode.RDMA_READ).sge(lo.memA, 4096, 128).remote(remote))) {
                read.remoteOffset(6144).post();
                Completion c = lo.take(1).get(0);
                assertEquals(WorkCompletionOpcode.RDMA_READ, c.opcode());
                assertEquals(WorkCompletionStatus.SUCCESS, c.status());
                assertArrayEquals(bytes(lo.memB, 6144, 128), bytes(lo.memA, 4096, 128));
            }

            // FETCH_ADD 3 times on a counter: the old values land locally.
            MemorySegment counter = lo.memB.segment().asSlice(7168, 8);
            counter.set(JAVA_LONG, 0, 40);
            try (PreparedExtendedSend add = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(6)
                    .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(2).sge(lo.memA, 6144, 8)
                    .remote(remote.address() + 7168, 8, remote.rkey()))) {
                for (int i = 0; i < 3; i++) {
                    add.wrId(10 + i).post();
                    Completion c = lo.take(1).get(0);
                    assertEquals(WorkCompletionOpcode.FETCH_ADD, c.opcode());
                    assertEquals(WorkCompletionStatus.SUCCESS, c.status());
                    assertEquals(40 + 2 * i, lo.memA.segment().get(JAVA_LONG, 6144));
                }
                assertEquals(46, counter.get(JAVA_LONG, 0));
            }

            // CMP_SWP: compare 46, swap a value with its high bit set; the old value lands locally.
            long swap = 0x8000_0000_0000_0005L;
            try (PreparedExtendedSend cas = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(20)
                    .opcode(SendOpcode.ATOMIC_CMP_AND_SWP).compareAdd(46).swap(swap).sge(lo.memA, 6152, 8)
                    .remote(remote.address() + 7168, 8, remote.rkey()))) {
                cas.post();
                Completion c = lo.take(1).get(0);
                assertEquals(WorkCompletionOpcode.COMP_SWAP, c.opcode());
                assertEquals(WorkCompletionStatus.SUCCESS, c.status());
                assertEquals(46, lo.memA.segment().get(JAVA_LONG, 6152));
                assertEquals(swap, counter.get(JAVA_LONG, 0));
            }
        }
    }

    /** UD: each post carries its destination (ibv_wr_set_ud_addr: address handle, QPN, Q_Key). */
    @Test
    void aPreparedDatagramCarriesItsDestinationOnEveryPost() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.UD, SendOp.SEND, SendOp.SEND_WITH_IMM)) {
            fill(lo.memA.segment().asSlice(0, 64), 3);
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 40 + 256));
            lo.b.post(new ReceiveRequest().wrId(101).sge(lo.memB, 512, 40 + 256));
            AddressHandle ah = lo.pd.createAddressHandle(lo.endpointB, TestDevices.PORT,
                    TestDevices.gid(lo.context).index());
            int qkey = ConnectionOptions.DEFAULTS.qkey();
            try (PreparedExtendedSend send = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(1)
                    .opcode(SendOpcode.SEND_WITH_IMM).immediateData(0x8000_0021).sge(lo.memA, 0, 64).signaled(true)
                    .datagram(ah, lo.endpointB.qpn(), qkey))) {
                send.post();
                send.wrId(2).length(24).post();
                List<Completion> all = lo.take(4);
                assertEquals(WorkCompletionStatus.SUCCESS, ExtendedLoopback.byId(all, 1).status());
                assertEquals(WorkCompletionStatus.SUCCESS, ExtendedLoopback.byId(all, 2).status());
                Completion first = ExtendedLoopback.byId(all, 100);
                Completion second = ExtendedLoopback.byId(all, 101);
                assertEquals(40 + 64, first.byteLength());
                assertEquals(40 + 24, second.byteLength());
                assertEquals(0x8000_0021, first.immediate());
                assertEquals(lo.a.qpNumber(), first.sourceQp());
                assertEquals(lo.a.qpNumber(), second.sourceQp());
                assertArrayEquals(bytes(lo.memA, 0, 64), bytes(lo.memB, 40, 64));
                assertArrayEquals(bytes(lo.memA, 0, 24), bytes(lo.memB, 512 + 40, 24));
            }
        }
    }

    @Test
    void closingTheRegionOrQueuePairMakesTheNextPostThrow() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            RemoteMemory remote = lo.memB.remote();
            MemoryRegion mine = lo.pd.allocate(4096, Loopback.ALL);
            PreparedExtendedSend write = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(1)
                    .opcode(SendOpcode.RDMA_WRITE).sge(mine, 0, 64).remote(remote));
            write.post();
            assertEquals(WorkCompletionStatus.SUCCESS, lo.take(1).get(0).status());

            // A batch this thread left open: the post refuses instead of spinning in wr_start.
            lo.sa.start().wrId(2).signaled(true).rdmaWrite(remote, 512).sge(lo.memA, 0, 16);
            IllegalStateException open = assertThrows(IllegalStateException.class, write::post);
            assertTrue(open.getMessage().contains("this thread"), open.getMessage());
            lo.sa.complete();
            assertEquals(2, lo.take(1).get(0).wrId(), "the batch, and nothing of the refused post");
            write.wrId(3).post();
            assertEquals(3, lo.take(1).get(0).wrId());

            mine.close();
            assertTrue(write.isClosed(), "closing the region closed the prepared request first");
            assertThrows(IllegalStateException.class, write::post);

            PreparedExtendedSend send = PreparedExtendedSend.of(lo.sa, new SendRequest().wrId(4)
                    .opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 64).remote(remote));
            send.post();
            assertEquals(WorkCompletionStatus.SUCCESS, lo.take(1).get(0).status());
            lo.a.close();
            assertTrue(send.isClosed(), "closing the queue pair closed the prepared request first");
            assertThrows(IllegalStateException.class, send::post);
            assertThrows(IllegalStateException.class, send::tryPost);
        }
    }
}
