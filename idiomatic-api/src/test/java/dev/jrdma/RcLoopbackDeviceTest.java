// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The data path over two connected RC queue pairs on one device. */
@DeviceTest
@EveryKernel
class RcLoopbackDeviceTest extends LoopbackFixture {

    /** Polls {@code n} completions, all successful, keyed by wr_id (copies: the view is reused). */
    private Map<Long, String> takeAll(int n) {
        Map<Long, String> byId = new HashMap<>();
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = lo.take().checkSuccess();
            byId.put(wc.wrId(), wc.opcode() + "/" + wc.byteLength() + "/" + Integer.toHexString(wc.qpNumber()));
        }
        return byId;
    }

    @Test
    @Exercises("ibv_query_qp")
    void connectedQueuePairsAreInRts() {
        assertEquals(QueuePairState.RTS, lo.a.state());
        assertEquals(QueuePairState.RTS, lo.b.state());
        assertTrue(lo.a.capabilities().maxInlineData() >= 64);
        assertTrue(lo.a.capabilities().maxSendWorkRequests() >= 16);
    }

    @Test
    @Exercises({
            "ibv_alloc_pd", "ibv_reg_mr", "ibv_reg_mr_iova2", "ibv_create_cq", "ibv_create_qp", "ibv_modify_qp", "ibv_post_send",
            "ibv_post_recv", "ibv_poll_cq"})
    void sendAndReceiveHello() {
        byte[] hello = "Hello, RDMA!".getBytes(StandardCharsets.US_ASCII);
        lo.memA.segment().copyFrom(MemorySegment.ofArray(hello));
        lo.b.post(new ReceiveRequest().wrId(1).sge(lo.memB));
        lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.SEND).sge(lo.memA, 0, hello.length));
        Map<Long, String> done = takeAll(2);
        assertEquals("RECV/" + hello.length + "/" + Integer.toHexString(lo.b.qpNumber()), done.get(1L));
        assertEquals("SEND/", done.get(2L).substring(0, 5));
        assertArrayEquals(hello, lo.memB.segment().asSlice(0, hello.length).toArray(JAVA_BYTE));
    }

    /**
     * A re-posted receive request writes num_sge only when its SGE count changed (the re-post
     * path skips it otherwise), so growing the scatter list between posts must still reach the
     * provider: 16 bytes into one 8-byte SGE would fail with a length error.
     */
    @Test
    void repostedReceiveFollowsItsSgeCount() {
        MemorySegment source = lo.memA.segment().asSlice(0, 16);
        for (int i = 0; i < 16; i++) {
            source.set(JAVA_BYTE, i, (byte) (i + 1));
        }
        ReceiveRequest recv = new ReceiveRequest(2).wrId(1).sge(lo.memB, 0, 8);
        SendRequest send = new SendRequest().wrId(2).opcode(SendOpcode.SEND).sge(lo.memA, 0, 8);
        lo.b.post(recv);
        lo.a.post(send);
        Map<Long, String> first = takeAll(2);
        assertEquals("RECV/8/" + Integer.toHexString(lo.b.qpNumber()), first.get(1L));

        lo.b.post(recv.wrId(3).sge(1, lo.memB, 1024, 8));   // now 2 SGEs: [0, 8) and [1024, 1032)
        lo.a.post(send.wrId(4).sge(lo.memA, 0, 16));
        Map<Long, String> second = takeAll(2);
        assertEquals("RECV/16/" + Integer.toHexString(lo.b.qpNumber()), second.get(3L));
        assertArrayEquals(source.asSlice(0, 8).toArray(JAVA_BYTE), lo.memB.segment().asSlice(0, 8).toArray(JAVA_BYTE));
        assertArrayEquals(source.asSlice(8, 8).toArray(JAVA_BYTE),
                lo.memB.segment().asSlice(1024, 8).toArray(JAVA_BYTE));
    }

    @Test
    void sendWithImmediateAndInlineData() {
        lo.memA.segment().asSlice(0, 5).copyFrom(MemorySegment.ofArray("hi!!!".getBytes(StandardCharsets.US_ASCII)));
        lo.b.post(new ReceiveRequest().wrId(10).sge(lo.memB, 0, 64));
        lo.a.post(new SendRequest().wrId(11).opcode(SendOpcode.SEND_WITH_IMM).immediateData(0xfeed_beef)
                .inline(true).sge(lo.memA, 0, 5));
        boolean received = false;
        for (int i = 0; i < 2; i++) {
            WorkCompletion wc = lo.take().checkSuccess();
            if (wc.wrId() == 10) {
                assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
                assertTrue(wc.hasImmediate());
                assertEquals(0xfeed_beef, wc.immediateData());
                assertEquals(5, wc.byteLength());
                received = true;
            }
        }
        assertTrue(received);
        assertEquals("hi!!!", new String(lo.memB.segment().asSlice(0, 5).toArray(JAVA_BYTE), StandardCharsets.US_ASCII));
    }

    @Test
    void rdmaWriteAndWriteWithImmediate() {
        MemorySegment source = lo.memA.segment().asSlice(0, 256);
        for (int i = 0; i < 256; i++) {
            source.set(JAVA_BYTE, i, (byte) (i * 7 + 3));
        }
        lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 256)
                .remote(lo.memB.remote(1024, 256)));
        WorkCompletion wc = lo.take().checkSuccess();
        assertEquals(WorkCompletionOpcode.RDMA_WRITE, wc.opcode());
        assertArrayEquals(source.toArray(JAVA_BYTE), lo.memB.segment().asSlice(1024, 256).toArray(JAVA_BYTE));

        lo.b.post(new ReceiveRequest().wrId(2).sge(lo.memB, 0, 16));
        lo.a.post(new SendRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediateData(77)
                .sge(lo.memA, 0, 32).remote(lo.memB.remote(4096, 32)));
        boolean sawImm = false;
        for (int i = 0; i < 2; i++) {
            WorkCompletion c = lo.take().checkSuccess();
            if (c.wrId() == 2) {
                assertEquals(WorkCompletionOpcode.RECV_RDMA_WITH_IMM, c.opcode());
                assertEquals(77, c.immediateData());
                sawImm = true;
            }
        }
        assertTrue(sawImm);
        assertArrayEquals(source.asSlice(0, 32).toArray(JAVA_BYTE), lo.memB.segment().asSlice(4096, 32).toArray(JAVA_BYTE));
    }

    @Test
    void rdmaRead() {
        MemorySegment remote = lo.memB.segment().asSlice(512, 128);
        for (int i = 0; i < 128; i++) {
            remote.set(JAVA_BYTE, i, (byte) (255 - i));
        }
        lo.a.post(new SendRequest().wrId(5).opcode(SendOpcode.RDMA_READ).sge(lo.memA, 2048, 128)
                .remote(lo.memB.remote(512, 128)));
        WorkCompletion wc = lo.take().checkSuccess();
        assertEquals(WorkCompletionOpcode.RDMA_READ, wc.opcode());
        assertEquals(128, wc.byteLength());
        assertArrayEquals(remote.toArray(JAVA_BYTE), lo.memA.segment().asSlice(2048, 128).toArray(JAVA_BYTE));
    }

    @Test
    void atomicFetchAddAndCompareSwap() {
        MemorySegment counter = lo.memB.segment().asSlice(64, 8);
        counter.set(JAVA_LONG, 0, 40);
        SendRequest add = new SendRequest().wrId(1).opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).compareAdd(2)
                .sge(lo.memA, 0, 8).remote(lo.memB.remote(64, 8));
        lo.a.post(add);
        assertEquals(WorkCompletionOpcode.FETCH_ADD, lo.take().checkSuccess().opcode());
        assertEquals(40, lo.memA.segment().get(JAVA_LONG, 0), "the old value lands locally");
        assertEquals(42, counter.get(JAVA_LONG, 0));

        SendRequest swap = new SendRequest().wrId(2).opcode(SendOpcode.ATOMIC_CMP_AND_SWP).compareAdd(42).swap(1000)
                .sge(lo.memA, 8, 8).remote(lo.memB.remote(64, 8));
        lo.a.post(swap);
        assertEquals(WorkCompletionOpcode.COMP_SWAP, lo.take().checkSuccess().opcode());
        assertEquals(42, lo.memA.segment().get(JAVA_LONG, 8));
        assertEquals(1000, counter.get(JAVA_LONG, 0));

        lo.a.post(swap.wrId(3).compareAdd(42).swap(5));   // compare fails: nothing is stored
        lo.take().checkSuccess();
        assertEquals(1000, lo.memA.segment().get(JAVA_LONG, 8));
        assertEquals(1000, counter.get(JAVA_LONG, 0));
    }

    @Test
    void aRequestIsRepostedWithChangedFields() {
        SendRequest write = new SendRequest().opcode(SendOpcode.RDMA_WRITE);
        for (int i = 0; i < 20; i++) {
            lo.memA.segment().set(JAVA_LONG, i * 8L, 1000 + i);
            lo.a.post(write.wrId(i).sge(lo.memA, i * 8L, 8).remote(lo.memB.remote(i * 8L, 8)).signaled(i % 4 == 3));
            if (i % 4 == 3) {
                // Unsignalled requests complete silently; the signalled one covers them.
                assertEquals(i, lo.take().checkSuccess().wrId());
            }
        }
        for (int i = 0; i < 20; i++) {
            assertEquals(1000 + i, lo.memB.segment().get(JAVA_LONG, i * 8L));
        }
        assertEquals(0, lo.cq.poll(lo.wc));
    }

    @Test
    void chainsArePostedWithOneCallAndBatchesPolled() {
        ReceiveRequest r1 = new ReceiveRequest().wrId(101).sge(lo.memB, 0, 64);
        ReceiveRequest r2 = new ReceiveRequest().wrId(102).sge(lo.memB, 64, 64);
        lo.b.post(r1.next(r2));
        SendRequest s1 = new SendRequest().wrId(201).sge(lo.memA, 0, 10);
        SendRequest s2 = new SendRequest(2).wrId(202).sge(0, lo.memA, 100, 3).sge(1, lo.memA, 200, 4);
        lo.a.post(s1.next(s2));
        WorkCompletions batch = new WorkCompletions(8);
        Map<Long, Integer> lengths = new HashMap<>();
        long deadline = System.nanoTime() + TestDevices.TIMEOUT.toNanos();
        while (lengths.size() < 4 && System.nanoTime() < deadline) {
            int n = lo.cq.poll(batch);
            assertEquals(n, batch.count());
            for (int i = 0; i < n; i++) {
                WorkCompletion wc = batch.get(i).checkSuccess();
                lengths.put(wc.wrId(), wc.byteLength());
            }
        }
        assertEquals(4, lengths.size(), lengths.toString());
        assertEquals(10, lengths.get(101L));
        assertEquals(7, lengths.get(102L), "two SGEs gathered into one message");
    }

    @Test
    void resetAndReconnect() {
        lo.a.reset();
        assertEquals(QueuePairState.RESET, lo.a.state());
        lo.b.reset();
        TestDevices.connectEachOther(lo.a, lo.b);
        lo.b.post(new ReceiveRequest().wrId(1).sge(lo.memB));
        lo.a.post(new SendRequest().wrId(2).sge(lo.memA, 0, 1));
        assertEquals(2, takeAll(2).size());
        assertFalse(lo.a.isClosed());
    }
}
