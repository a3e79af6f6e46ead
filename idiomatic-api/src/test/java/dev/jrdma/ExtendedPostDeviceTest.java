// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.ExtendedLoopback.Completion;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * The extended post API ({@code ibv_wr_*}) on RC, UC and UD queue pairs of one device, with
 * completions read through an extended CQ: each operation's bytes and completion fields are
 * checked, as is every refusal and misuse.
 */
@DeviceTest
@EveryKernel
class ExtendedPostDeviceTest {
    private static final SendOp[] RC_OPS = {SendOp.SEND, SendOp.SEND_WITH_IMM, SendOp.RDMA_WRITE,
        SendOp.RDMA_WRITE_WITH_IMM, SendOp.RDMA_READ, SendOp.ATOMIC_CMP_AND_SWP, SendOp.ATOMIC_FETCH_AND_ADD};
    /** {@code IBV_WC_WITH_IMM}. */
    private static final int WITH_IMM = 2;
    /** {@code IBV_WC_GRH}. */
    private static final int GRH = 1;

    private static void fill(MemorySegment segment, int seed) {
        for (int i = 0; i < segment.byteSize(); i++) {
            segment.set(JAVA_BYTE, i, (byte) (i * 7 + seed));
        }
    }

    /** What rxe reports on RoCE for every completion of a connected QP: no LID, SL 0 (the default), no path bits. */
    private static void assertRoceAddressing(Completion c) {
        assertEquals(0, c.sourceLid(), c.toString());
        assertEquals(0, c.serviceLevel(), c.toString());
        assertEquals(0, c.dlidPathBits(), c.toString());
        assertEquals(0, c.vendorError(), c.toString());
    }

    @Test
    @Exercises({"ibv_create_qp_ex", "ibv_qp_to_qp_ex", "ibv_wr_start", "ibv_wr_send", "ibv_wr_send_imm",
        "ibv_wr_set_sge", "ibv_wr_complete", "ibv_create_cq_ex", "ibv_cq_ex_to_cq", "ibv_start_poll", "ibv_next_poll",
        "ibv_end_poll", "ibv_wc_read_opcode", "ibv_wc_read_vendor_err", "ibv_wc_read_byte_len",
        "ibv_wc_read_imm_data", "ibv_wc_read_qp_num", "ibv_wc_read_src_qp", "ibv_wc_read_wc_flags",
        "ibv_wc_read_slid", "ibv_wc_read_sl", "ibv_wc_read_dlid_path_bits"})
    void rcSendAndSendWithImmediateInOneBatch() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            fill(lo.memA.segment().asSlice(0, 64), 1);
            lo.b.post(new ReceiveRequest().wrId(101).sge(lo.memB, 0, 64));
            lo.b.post(new ReceiveRequest().wrId(102).sge(lo.memB, 1024, 64));
            try (var batch = lo.sa.start()) {
                batch.wrId(1).signaled(true).send().sge(lo.memA, 0, 16);
                batch.wrId(2).sendWithImmediate(0xfeed_beef).sge(lo.memA, 16, 8);
                batch.complete();
            }
            assertFalse(lo.sa.isStarted());
            List<Completion> all = lo.take(4);
            Completion send = ExtendedLoopback.byId(all, 1);
            assertEquals(WorkCompletionStatus.SUCCESS, send.status());
            assertEquals(WorkCompletionOpcode.SEND, send.opcode());
            assertEquals(lo.a.qpNumber(), send.qpNumber());
            assertEquals(0, send.flags() & WITH_IMM);
            assertRoceAddressing(send);
            Completion sendImm = ExtendedLoopback.byId(all, 2);
            assertEquals(WorkCompletionOpcode.SEND, sendImm.opcode());
            assertEquals(lo.a.qpNumber(), sendImm.qpNumber());
            Completion recv = ExtendedLoopback.byId(all, 101);
            assertEquals(WorkCompletionOpcode.RECV, recv.opcode());
            assertEquals(16, recv.byteLength());
            assertEquals(lo.b.qpNumber(), recv.qpNumber());
            assertEquals(0, recv.flags() & WITH_IMM);
            assertRoceAddressing(recv);
            Completion recvImm = ExtendedLoopback.byId(all, 102);
            assertEquals(WorkCompletionOpcode.RECV, recvImm.opcode());
            assertEquals(8, recvImm.byteLength());
            assertEquals(WITH_IMM, recvImm.flags() & WITH_IMM);
            assertEquals(0xfeed_beef, recvImm.immediate());
            assertArrayEquals(lo.memA.segment().asSlice(0, 16).toArray(JAVA_BYTE),
                    lo.memB.segment().asSlice(0, 16).toArray(JAVA_BYTE));
            assertArrayEquals(lo.memA.segment().asSlice(16, 8).toArray(JAVA_BYTE),
                    lo.memB.segment().asSlice(1024, 8).toArray(JAVA_BYTE));
        }
    }

    @Test
    @Exercises({"ibv_wr_rdma_write", "ibv_wr_rdma_write_imm", "ibv_wr_rdma_read"})
    void rcWriteWriteWithImmediateAndRead() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            MemorySegment source = lo.memA.segment().asSlice(0, 256);
            fill(source, 3);
            RemoteMemory remote = lo.memB.remote();
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 16));
            try (var batch = lo.sa.start()) {
                batch.wrId(1).signaled(true).rdmaWrite(remote, 1024).sge(lo.memA, 0, 256);
                batch.wrId(2).rdmaWriteWithImmediate(remote, 4096, 77).sge(lo.memA, 0, 32);
                batch.complete();
            }
            List<Completion> all = lo.take(3);
            assertEquals(WorkCompletionOpcode.RDMA_WRITE, ExtendedLoopback.byId(all, 1).opcode());
            assertEquals(WorkCompletionOpcode.RDMA_WRITE, ExtendedLoopback.byId(all, 2).opcode());
            Completion imm = ExtendedLoopback.byId(all, 100);
            assertEquals(WorkCompletionOpcode.RECV_RDMA_WITH_IMM, imm.opcode());
            assertEquals(77, imm.immediate());
            assertEquals(WITH_IMM, imm.flags() & WITH_IMM);
            assertEquals(32, imm.byteLength());
            assertArrayEquals(source.toArray(JAVA_BYTE), lo.memB.segment().asSlice(1024, 256).toArray(JAVA_BYTE));
            assertArrayEquals(source.asSlice(0, 32).toArray(JAVA_BYTE),
                    lo.memB.segment().asSlice(4096, 32).toArray(JAVA_BYTE));

            MemorySegment far = lo.memB.segment().asSlice(512, 128);
            fill(far, 9);
            lo.sa.start().wrId(3).rdmaRead(remote, 512).sge(lo.memA, 2048, 128).complete();
            Completion read = lo.take(1).get(0);
            assertEquals(3, read.wrId());
            assertEquals(WorkCompletionOpcode.RDMA_READ, read.opcode());
            assertEquals(128, read.byteLength());
            assertArrayEquals(far.toArray(JAVA_BYTE), lo.memA.segment().asSlice(2048, 128).toArray(JAVA_BYTE));
        }
    }

    @Test
    @Exercises({"ibv_wr_atomic_fetch_add", "ibv_wr_atomic_cmp_swp"})
    void rcAtomics() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            MemorySegment counter = lo.memB.segment().asSlice(64, 8);
            counter.set(JAVA_LONG, 0, 40);
            RemoteMemory remote = lo.memB.remote();
            lo.sa.start().wrId(1).signaled(true).fetchAndAdd(remote, 64, 2).sge(lo.memA, 0, 8).complete();
            Completion add = lo.take(1).get(0);
            assertEquals(WorkCompletionOpcode.FETCH_ADD, add.opcode());
            assertEquals(8, add.byteLength());
            assertEquals(40, lo.memA.segment().get(JAVA_LONG, 0), "the old value lands locally");
            assertEquals(42, counter.get(JAVA_LONG, 0));

            lo.sa.start().wrId(2).compareAndSwap(remote, 64, 42, 1000).sge(lo.memA, 8, 8).complete();
            assertEquals(WorkCompletionOpcode.COMP_SWAP, lo.take(1).get(0).opcode());
            assertEquals(42, lo.memA.segment().get(JAVA_LONG, 8));
            assertEquals(1000, counter.get(JAVA_LONG, 0));

            lo.sa.start().wrId(3).compareAndSwap(remote, 64, 42, 5).sge(lo.memA, 8, 8).complete();
            assertEquals(WorkCompletionStatus.SUCCESS, lo.take(1).get(0).status());
            assertEquals(1000, counter.get(JAVA_LONG, 0), "compare failed: nothing stored");
        }
    }

    /**
     * Inline data from a segment, and from a list of buffers. librxe before rdma-core 64 never
     * adds up the list's lengths (fixed by commit 1e8ed0a), so there the request carries 0
     * bytes: this test expects that on the rdma-core it finds, and the right bytes elsewhere.
     */
    @Test
    @Exercises({"ibv_wr_set_inline_data", "ibv_wr_set_inline_data_list"})
    void inlineDataAndInlineDataList() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS); Arena arena = Arena.ofConfined()) {
            MemorySegment hello = arena.allocateFrom("inline!", StandardCharsets.US_ASCII);   // 8 bytes with NUL
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 64));
            lo.sa.start().wrId(1).signaled(true).inline(true).send().inlineData(hello).complete();
            List<Completion> all = lo.take(2);
            assertEquals(8, ExtendedLoopback.byId(all, 100).byteLength());
            assertEquals("inline!", lo.memB.segment().getString(0, StandardCharsets.US_ASCII));

            lo.memA.segment().asSlice(0, 4).copyFrom(MemorySegment.ofArray("abcd".getBytes(StandardCharsets.US_ASCII)));
            lo.memA.segment().asSlice(100, 4).copyFrom(MemorySegment.ofArray("wxyz".getBytes(StandardCharsets.US_ASCII)));
            lo.b.post(new ReceiveRequest().wrId(101).sge(lo.memB, 1024, 64));
            lo.sa.start().wrId(2).send().inlineEntry(0, lo.memA, 0, 4).inlineEntry(1, lo.memA, 100, 4)
                    .inlineDataList(2).complete();
            List<Completion> list = lo.take(2);
            int expected = ProviderVersion.rdmaCore() < 64 ? 0 : 8;
            assertEquals(expected, ExtendedLoopback.byId(list, 101).byteLength(),
                    "rdma-core " + ProviderVersion.rdmaCore());
            if (expected == 8) {
                assertEquals("abcdwxyz", new String(lo.memB.segment().asSlice(1024, 8).toArray(JAVA_BYTE),
                        StandardCharsets.US_ASCII));
            }
            lo.sa.inline(false);
        }
    }

    /**
     * An SGE list gathers the entries into one message. Entries of equal length: librxe before
     * rdma-core 64 takes the list's length as count times the first entry's (fixed by 406cd2a).
     */
    @Test
    @Exercises("ibv_wr_set_sge_list")
    void sgeListGathersItsEntries() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            fill(lo.memA.segment().asSlice(0, 256), 5);
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 64));
            lo.sa.sgeEntry(0, lo.memA, 0, 8).sgeEntry(1, lo.memA, 128, 8);
            lo.sa.start().wrId(1).signaled(true).send().sgeList(2).complete();
            assertEquals(16, ExtendedLoopback.byId(lo.take(2), 100).byteLength());
            assertArrayEquals(lo.memA.segment().asSlice(0, 8).toArray(JAVA_BYTE),
                    lo.memB.segment().asSlice(0, 8).toArray(JAVA_BYTE));
            assertArrayEquals(lo.memA.segment().asSlice(128, 8).toArray(JAVA_BYTE),
                    lo.memB.segment().asSlice(8, 8).toArray(JAVA_BYTE));
        }
    }

    @Test
    @Exercises("ibv_wr_abort")
    void anAbortedBatchPostsNothing() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, RC_OPS)) {
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 64));
            lo.sa.start().wrId(5).signaled(true).send().sge(lo.memA, 0, 4);
            lo.sa.abort();
            try (var batch = lo.sa.start()) {
                batch.wrId(6).send().sge(lo.memA, 0, 4);
                // no complete(): closing aborts
            }
            lo.sa.start().wrId(7).send().sge(lo.memA, 0, 4).complete();
            List<Completion> all = lo.take(2);
            assertEquals(List.of(7L, 100L), all.stream().map(Completion::wrId).sorted().toList());
            assertEquals(0, lo.cq.poll(lo.batch), "the aborted sends left nothing behind");
        }
    }

    @Test
    void misuseThrowsBeforeAnyNativeCall() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.SEND)) {
            ExtendedSendQueue sq = lo.sa;
            assertThrows(IllegalStateException.class, () -> sq.send(), "outside a batch");
            assertThrows(IllegalStateException.class, sq::complete);
            sq.start();
            assertThrows(IllegalStateException.class, sq::start, "a second start would spin on the lock");
            assertThrows(IllegalStateException.class, () -> sq.sge(lo.memA, 0, 4), "setter before any operation");
            assertThrows(IllegalStateException.class, () -> sq.rdmaWrite(lo.memB.remote(), 0), "not created for it");
            sq.send();
            assertThrows(IllegalStateException.class, () -> sq.inlineData(lo.memA.segment().asSlice(0, 4)),
                    "built without inline(true)");
            assertThrows(IndexOutOfBoundsException.class, () -> sq.sge(lo.memA, Loopback.SIZE - 2, 4));
            sq.abort();
            assertFalse(sq.isStarted());
            assertThrows(IllegalStateException.class, () -> ExtendedSendQueue.of(
                    lo.pd.queuePair(QueuePairType.RC).completionQueue(lo.cq.asCompletionQueue()).build()));
            lo.a.close();
            assertThrows(IllegalStateException.class, sq::start);
        }
    }

    @Test
    @Exercises(value = {"ibv_wr_send_tso", "ibv_wr_set_xrc_srqn"}, refused = "librxe 44 has neither TSO"
            + " (create_qp_ex refuses IBV_QP_EX_WITH_TSO with EOPNOTSUPP) nor XRC (wr_set_xrc_srqn stays NULL)")
    void tsoAndXrcAreRefused() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.SEND)) {
            OperationNotSupportedException tso = assertThrows(OperationNotSupportedException.class,
                    () -> lo.pd.queuePair(QueuePairType.UD).completionQueue(lo.cq.asCompletionQueue())
                            .extendedPost(SendOp.SEND, SendOp.TSO).build());
            assertEquals(Verb.IBV_CREATE_QP_EX, tso.verb());
            assertTrue(tso.getMessage().contains("TSO") && tso.getMessage().contains(lo.context.name()),
                    tso.getMessage());
            assertEquals(0, lo.context.queryDevice().maxTsoBytes(), "rxe reports no TSO, so asking first says no");
            try (var batch = lo.sa.start()) {
                batch.send().sge(lo.memA, 0, 4);
                OperationNotSupportedException xrc = assertThrows(OperationNotSupportedException.class,
                        () -> batch.xrcSrqNumber(1));
                assertEquals(Verb.IBV_WR_SET_XRC_SRQN, xrc.verb());
                assertThrows(IllegalStateException.class, () -> batch.sendTso(lo.memA.segment().asSlice(0, 4), 1000));
            }
        }
    }

    @Test
    @Exercises("ibv_wr_set_ud_addr")
    void udSendWithItsAddress() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.UD, SendOp.SEND, SendOp.SEND_WITH_IMM)) {
            byte[] datagram = "an extended datagram".getBytes(StandardCharsets.US_ASCII);
            lo.memA.segment().copyFrom(MemorySegment.ofArray(datagram));
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 40 + 256));
            AddressHandle ah = lo.pd.createAddressHandle(lo.endpointB, TestDevices.PORT,
                    TestDevices.gid(lo.context).index());
            int qkey = ConnectionOptions.DEFAULTS.qkey();
            try (var batch = lo.sa.start()) {
                batch.wrId(1).signaled(true).sendWithImmediate(31).sge(lo.memA, 0, datagram.length);
                assertThrows(IllegalStateException.class, () -> batch.send(), "the first datagram has no address");
                batch.udAddress(ah, lo.endpointB.qpn(), qkey);
                batch.complete();
            }
            List<Completion> all = lo.take(2);
            Completion recv = ExtendedLoopback.byId(all, 100);
            assertEquals(WorkCompletionOpcode.RECV, recv.opcode());
            assertEquals(40 + datagram.length, recv.byteLength());
            assertEquals(lo.a.qpNumber(), recv.sourceQp());
            assertEquals(lo.b.qpNumber(), recv.qpNumber());
            assertEquals(GRH, recv.flags() & GRH);
            assertEquals(31, recv.immediate());
            assertEquals(WorkCompletionOpcode.SEND, ExtendedLoopback.byId(all, 1).opcode());
            assertArrayEquals(datagram, lo.memB.segment().asSlice(40, datagram.length).toArray(JAVA_BYTE));
            lo.sa.start().send().sge(lo.memA, 0, 4);
            assertThrows(IllegalStateException.class, lo.sa::complete, "no address: aborted, not posted");
            assertFalse(lo.sa.isStarted());
        }
    }

    @Test
    @Exercises("ibv_wr_rdma_write")
    void ucWrite() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.UC, SendOp.RDMA_WRITE, SendOp.SEND)) {
            MemorySegment source = lo.memA.segment().asSlice(0, 512);
            fill(source, 11);
            // UC has no acknowledgement: the write's completion says it left, not that it landed. A SEND
            // behind it on the same queue pair is processed after it (in PSN order), so the receive's
            // completion on B is what says the written bytes are there.
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 16));
            try (var batch = lo.sa.start()) {
                batch.wrId(1).signaled(true).rdmaWrite(lo.memB.remote(), 2048).sge(lo.memA, 0, 512);
                batch.wrId(2).signaled(true).send().sge(lo.memA, 0, 4);
                batch.complete();
            }
            List<Completion> all = lo.take(3);
            Completion write = ExtendedLoopback.byId(all, 1);
            assertEquals(WorkCompletionStatus.SUCCESS, write.status());
            assertEquals(WorkCompletionOpcode.RDMA_WRITE, write.opcode());
            assertEquals(WorkCompletionOpcode.RECV, ExtendedLoopback.byId(all, 100).opcode());
            assertArrayEquals(source.toArray(JAVA_BYTE), lo.memB.segment().asSlice(2048, 512).toArray(JAVA_BYTE));
        }
    }

    /**
     * Atomic write. librxe 44 builds it (IBV_QP_EX_WITH_ATOMIC_WRITE is among its RC send ops,
     * so the queue pair is created), but the kernel module decides: rxe in Linux 6.1 has no
     * IB_WR_ATOMIC_WRITE opcode and fails the request with an error completion, leaving the
     * peer's memory as it was; rxe from Linux 6.3 (6.12 here) writes the 8 bytes. A kernel
     * difference: this test expects the behaviour of the kernel it runs on.
     */
    @Test
    @Exercises(value = "ibv_wr_atomic_write", kernel = "6.12")
    @Exercises(value = "ibv_wr_atomic_write", kernel = "6.1", refused = "rxe in Linux 6.1 has no atomic write opcode:"
            + " librxe 44 builds the request and the kernel completes it with an error (Linux 6.3 and later execute it)")
    void atomicWriteDependsOnTheKernel(TestReporter reporter) {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.ATOMIC_WRITE, SendOp.SEND)) {
            MemorySegment target = lo.memB.segment().asSlice(256, 8);
            target.set(JAVA_LONG, 0, 7);
            lo.sa.start().wrId(1).signaled(true).atomicWrite(lo.memB.remote(), 256, 0x1122_3344_5566_7788L).complete();
            Completion c = lo.take(1).get(0);
            reporter.publishEntry("atomic write on Linux " + System.getProperty("os.version"), c.status().toString());
            assertEquals(ProviderVersion.kernel() >= 603, lo.context.queryDevice().supportsAtomicWrite(),
                    "the device answers first what the kernel does");
            if (ProviderVersion.kernel() < 603) {
                // rxe 6.1's requester finds no packet opcode for IB_WR_ATOMIC_WRITE: a local QP operation error.
                assertEquals(WorkCompletionStatus.LOC_QP_OP_ERR, c.status(), c.toString());
                assertEquals(7, target.get(JAVA_LONG, 0), "the peer's memory is untouched");
            } else {
                assertEquals(WorkCompletionStatus.SUCCESS, c.status(), c.toString());
                assertEquals(0x1122_3344_5566_7788L, target.get(JAVA_LONG, 0));
            }
        }
    }
}
