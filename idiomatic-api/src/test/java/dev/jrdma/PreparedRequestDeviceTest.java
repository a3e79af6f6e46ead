// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Prepared requests on a connected RC pair: each is checked once and posted several times with a
 * new wr_id, length or remote offset, and the bytes that arrive are the ones each post named.
 * Closing the queue pair or a region a prepared request uses makes its next post throw
 * IllegalStateException. A prepared poll returns each completion's status and leaves the rest
 * to its completion view.
 */
@DeviceTest
class PreparedRequestDeviceTest extends LoopbackFixture {

    private static void fill(MemorySegment s, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            s.set(JAVA_BYTE, offset + i, (byte) (seed + i));
        }
    }

    private static void assertBytes(MemorySegment s, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            assertEquals((byte) (seed + i), s.get(JAVA_BYTE, offset + i), "byte " + i + " at offset " + offset);
        }
    }

    @Test
    @Exercises({"ibv_post_send", "ibv_post_recv"})
    void preparedSendAndReceiveRepostWithNewWrIdAndLength() {
        MemorySegment a = lo.memA.segment();
        MemorySegment b = lo.memB.segment();
        try (PreparedReceive recv = PreparedReceive.of(lo.b, new ReceiveRequest().sge(lo.memB, 0, 256));
             PreparedSend send = PreparedSend.of(lo.a, new SendRequest().sge(lo.memA, 0, 200))) {
            for (int round = 0; round < 3; round++) {
                int length = 200 - 70 * round;   // 200, 130, 60: each down from the length prepared
                fill(a, 0, length, round * 31);
                b.fill((byte) 0);
                recv.wrId(100 + round).post();
                send.wrId(10 + round).length(length).post();
                WorkCompletion wc = lo.take().checkSuccess();
                long first = wc.wrId();
                int firstLength = wc.byteLength();
                WorkCompletion second = lo.take().checkSuccess();
                long receiveId = first >= 100 ? first : second.wrId();
                long sendId = first >= 100 ? second.wrId() : first;
                int received = first >= 100 ? firstLength : second.byteLength();
                assertEquals(100 + round, receiveId);
                assertEquals(10 + round, sendId);
                assertEquals(length, received, "the receive completion counts the length posted");
                assertBytes(b, 0, length, round * 31);
                assertEquals(0, b.get(JAVA_BYTE, length), "nothing beyond the length posted");
            }
        }
    }

    @Test
    @Exercises({"ibv_post_send"})
    void preparedWriteAndReadMoveWithTheRemoteOffset() {
        MemorySegment a = lo.memA.segment();
        MemorySegment b = lo.memB.segment();
        SendRequest write = new SendRequest().opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 64)
                .remote(lo.memB.remote(0, 1024));
        SendRequest read = new SendRequest().opcode(SendOpcode.RDMA_READ).sge(lo.memA, 4096, 64)
                .remote(lo.memB.remote(0, 1024));
        try (PreparedSend w = PreparedSend.of(lo.a, write); PreparedSend r = PreparedSend.of(lo.a, read)) {
            for (int k = 0; k < 3; k++) {
                long offset = 320L * k;   // 0, 320, 640: within the 1024 bytes prepared
                fill(a, 0, 64, 7 * k + 1);
                w.wrId(k).remoteOffset(offset).post();
                WorkCompletion wc = lo.take().checkSuccess();
                assertEquals(k, wc.wrId());
                assertEquals(WorkCompletionOpcode.RDMA_WRITE, wc.opcode());
                assertBytes(b, offset, 64, 7 * k + 1);

                fill(b, offset + 64, 32, 11 * k + 3);
                r.wrId(50 + k).remoteOffset(offset + 64).length(32).post();
                wc = lo.take().checkSuccess();
                assertEquals(50 + k, wc.wrId());
                assertEquals(WorkCompletionOpcode.RDMA_READ, wc.opcode());
                assertEquals(32, wc.byteLength());
                assertBytes(a, 4096, 32, 11 * k + 3);
            }
            assertThrows(IndexOutOfBoundsException.class, () -> w.remoteOffset(1024 - 63),
                    "64 bytes at 961 overrun the 1024 bytes prepared");
        }
    }

    /** Polls until a completion arrives, within 10 s: the status code it returned. */
    private static int pollOne(PreparedPoll poll) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        int status;
        while ((status = poll.poll()) == PreparedPoll.EMPTY) {
            assertTrue(System.nanoTime() - deadline < 0, "no completion on " + poll.completionQueue() + " within 10 s");
            Thread.onSpinWait();
        }
        return status;
    }

    @Test
    @Exercises({"ibv_poll_cq"})
    void aPreparedPollReturnsEachStatusAndTheCompletionCarriesTheRest() {
        fill(lo.memA.segment(), 0, 48, 7);
        try (PreparedPoll poll = PreparedPoll.of(lo.cq);
             PreparedReceive recv = PreparedReceive.of(lo.b, new ReceiveRequest().wrId(200).sge(lo.memB, 0, 256));
             PreparedSend send = PreparedSend.of(lo.a, new SendRequest().wrId(20).sge(lo.memA, 0, 48))) {
            assertEquals(PreparedPoll.EMPTY, poll.poll(), "nothing posted yet");
            recv.post();
            send.post();
            long sendId = -1;
            int received = -1;
            for (int i = 0; i < 2; i++) {
                assertEquals(PreparedPoll.SUCCESS, pollOne(poll));
                WorkCompletion wc = poll.completion();
                if (wc.opcode() == WorkCompletionOpcode.RECV) {
                    assertEquals(200, wc.wrId());
                    received = wc.byteLength();
                } else {
                    sendId = wc.wrId();
                }
            }
            assertEquals(20, sendId);
            assertEquals(48, received);
            assertBytes(lo.memB.segment(), 0, 48, 7);

            // A write to a key the peer never granted: the status comes back as the poll's answer.
            RemoteMemory wrong = lo.memB.remote(0, 16);
            try (PreparedSend bad = PreparedSend.of(lo.a, new SendRequest().wrId(21).opcode(SendOpcode.RDMA_WRITE)
                    .sge(lo.memA, 0, 16).remote(new RemoteMemory(wrong.address(), 16, wrong.rkey() ^ 0x5a5a00)))) {
                bad.post();
                int status = pollOne(poll);
                assertEquals(WorkCompletionStatus.REM_ACCESS_ERR.value(), status,
                        "status " + poll.completion().status());
                assertEquals(21, poll.completion().wrId());
                assertThrows(WorkCompletionException.class, poll.completion()::checkSuccess);
            }
        }
        PreparedPoll afterClose = PreparedPoll.of(lo.cq);
        lo.cq.close();
        assertTrue(afterClose.isClosed(), "closing the CQ closed the prepared poll");
        assertThrows(IllegalStateException.class, afterClose::poll);
    }

    @Test
    @Exercises({"ibv_post_send"})
    void closingTheRegionOrQueuePairMakesTheNextPostThrowIllegalState() {
        MemoryRegion extra = lo.pd.allocate(4096, Loopback.ALL);
        PreparedSend onExtra = PreparedSend.of(lo.a, new SendRequest().opcode(SendOpcode.RDMA_WRITE)
                .sge(extra, 0, 16).remote(lo.memB.remote(0, 16)).wrId(1));
        PreparedSend onMemA = PreparedSend.of(lo.a, new SendRequest().opcode(SendOpcode.RDMA_WRITE)
                .sge(lo.memA, 0, 16).remote(lo.memB.remote(0, 16)).wrId(2));
        onExtra.post();
        assertEquals(1, lo.take().checkSuccess().wrId());

        extra.close();
        assertTrue(onExtra.isClosed(), "closing its region closed the prepared request");
        IllegalStateException e = assertThrows(IllegalStateException.class, onExtra::post);
        assertTrue(e.getMessage().contains("prepared send"), e.getMessage());

        onMemA.post();   // the other region is still open
        assertEquals(2, lo.take().checkSuccess().wrId());
        lo.a.close();
        assertThrows(IllegalStateException.class, onMemA::post);
        assertThrows(IllegalStateException.class, onMemA::tryPost);
    }

    @Test
    @Exercises({"ibv_post_send", "ibv_post_recv"})
    void aQueuePairNotYetInRtsRefusesAPreparedSend() {
        QueuePair fresh = lo.pd.queuePair(QueuePairType.RC).completionQueue(lo.cq).build();
        PreparedSend send = PreparedSend.of(fresh, new SendRequest().sge(lo.memA, 0, 8));
        PreparedReceive recv = PreparedReceive.of(fresh, new ReceiveRequest().sge(lo.memA, 0, 8));
        IllegalStateException e = assertThrows(IllegalStateException.class, send::post);
        assertTrue(e.getMessage().contains("RESET"), e.getMessage());
        assertThrows(IllegalStateException.class, recv::post);
        fresh.toInit();
        recv.post();   // INIT takes receives
        assertThrows(IllegalStateException.class, send::post);
    }

    /**
     * A chain of four writes prepared once and posted in one call (a perftest post list), every
     * second signalled: each post brings two completions, and the bytes of all four arrive; a
     * poll asks for at most as many completions as told, in order.
     */
    @Test
    @Exercises({"ibv_post_send", "ibv_poll_cq"})
    void aPreparedChainPostsAListAndPollTakesAtMostTheSizeAsked() {
        MemorySegment a = lo.memA.segment();
        MemorySegment b = lo.memB.segment();
        RemoteMemory remote = new RemoteMemory(lo.memB.address(), Loopback.SIZE, lo.memB.rkey());
        SendRequest head = null;
        SendRequest last = null;
        for (int j = 0; j < 4; j++) {
            SendRequest r = new SendRequest().wrId(j).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, j * 64L, 64)
                    .remote(new RemoteMemory(remote.address() + j * 64L, 64, remote.rkey())).signaled(j % 2 == 1);
            if (head == null) {
                head = r;
            } else {
                last.next(r);
            }
            last = r;
        }
        WorkCompletions batch = new WorkCompletions(4);
        try (PreparedSend list = PreparedSend.of(lo.a, head)) {
            assertEquals(4, list.size());
            for (int round = 0; round < 3; round++) {
                fill(a, 0, 256, round * 7);
                list.post();
                long[] ids = new long[2];
                int got = 0;
                long deadline = System.nanoTime() + TestDevices.TIMEOUT.toNanos();
                while (got < 2) {
                    int n = lo.cq.poll(batch, 1);
                    assertTrue(n <= 1, "asked for 1, got " + n);
                    if (n == 1) {
                        ids[got++] = batch.get(0).checkSuccess().wrId();
                    }
                    assertTrue(System.nanoTime() < deadline, "no completion");
                }
                assertEquals(1, ids[0], "every second request of the list is signalled");
                assertEquals(3, ids[1]);
                assertBytes(b, 0, 256, round * 7);
            }
        }
        assertThrows(IndexOutOfBoundsException.class, () -> lo.cq.poll(batch, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> lo.cq.poll(batch, 0));
    }
}
