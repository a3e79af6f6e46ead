// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.testing.DeviceTest;
import org.junit.jupiter.api.Test;

/**
 * A full send or receive queue is ordinary on a fast path: tryPost answers false, posting
 * nothing and allocating nothing, while post keeps throwing on top of the same failure.
 */
@DeviceTest
class BackPressureDeviceTest extends DeviceFixture {
    private static final int DEPTH = 8;

    /** Bounds the filling loops: rxe rounds a queue up (8 requested, 15 usable), but not this far. */
    private static final int MAX_ROOM = 4096;

    /** A QP in INIT (receives allowed) with receive queues of {@link #DEPTH}. */
    private static QueuePair receiver(Context context, ProtectionDomain pd) {
        CompletionQueue cq = context.createCompletionQueue(64);
        QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(DEPTH, DEPTH).build();
        qp.toInit();
        return qp;
    }

    /** Posts receives until tryPost answers false; returns how many fitted. */
    private static int fill(QueuePair qp, ReceiveRequest receive) {
        int posted = 0;
        while (qp.tryPost(receive.wrId(posted))) {
            assertTrue(++posted < MAX_ROOM, "tryPost never answered false on " + qp);
        }
        return posted;
    }

    @Test
    void aFullReceiveQueueAnswersFalseWithoutAllocating() {
        QueuePair qp = receiver(context, pd);
        MemoryRegion mr = pd.allocate(4096);
        ReceiveRequest receive = new ReceiveRequest().sge(mr, 0, 64);
        int room = fill(qp, receive);
        assertTrue(room >= qp.capabilities().maxReceiveWorkRequests(), room + " receives fitted " + qp);
        long bytes = 0;
        // As in AllocationDeviceTest: the passes before the last warm the JIT up (an
        // interpreted downcall allocates), the last one is measured.
        for (int pass = 0; pass < 4; pass++) {
            long before = Allocations.allocatedBytes();
            for (int i = 0; i < 2000; i++) {
                if (qp.tryPost(receive.wrId(room + i))) {
                    throw new AssertionError("a receive beyond the " + room + " that fitted was posted");
                }
            }
            bytes = Allocations.since(before);
        }
        assertEquals(0, bytes, "bytes allocated by 2000 refused tryPost calls after warm-up");
        RdmaException e = assertThrows(RdmaException.class, () -> qp.post(receive.wrId(99)));
        assertEquals(Errno.ENOMEM, e.errno(), e.getMessage());
        assertTrue(e.getMessage().contains("wr_id 99"), e.getMessage());
    }

    @Test
    void aFullSharedReceiveQueueAnswersFalse() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(DEPTH, 1);
        MemoryRegion mr = pd.allocate(4096);
        ReceiveRequest receive = new ReceiveRequest().sge(mr, 0, 64);
        int posted = 0;
        while (srq.tryPost(receive.wrId(posted))) {
            assertTrue(++posted < MAX_ROOM, "tryPost never answered false on " + srq);
        }
        assertTrue(posted >= srq.maxWorkRequests(), "only " + posted + " receives fitted " + srq);
        assertFalse(srq.tryPost(receive.wrId(posted)));
        long next = posted + 1;
        RdmaException e = assertThrows(RdmaException.class, () -> srq.post(receive.wrId(next)));
        assertEquals(Errno.ENOMEM, e.errno(), e.getMessage());
    }

    /**
     * Sends to a peer that never reaches RTR are never acknowledged, so they stay on the send
     * queue (until the retry budget runs out, far later) and fill it.
     */
    @Test
    void aFullSendQueueAnswersFalse() {
        CompletionQueue cq = context.createCompletionQueue(MAX_ROOM);
        QueuePair sender = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(DEPTH, 1).build();
        QueuePair silent = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
        sender.connect(silent.localEndpoint());
        MemoryRegion mr = pd.allocate(4096);
        SendRequest send = new SendRequest().opcode(SendOpcode.SEND).sge(mr, 0, 64).signaled(true);
        int posted = 0;
        while (sender.tryPost(send.wrId(posted))) {
            assertTrue(++posted < MAX_ROOM, "tryPost never answered false on " + sender);
        }
        assertTrue(posted >= sender.capabilities().maxSendWorkRequests(), posted + " sends fitted " + sender);
        RdmaException e = assertThrows(RdmaException.class, () -> sender.post(send.wrId(1234)));
        assertEquals(Errno.ENOMEM, e.errno(), e.getMessage());
    }

    @Test
    void aPartlyPostedChainThrowsRatherThanAnsweringFalse() {
        MemoryRegion mr = pd.allocate(4096);
        ReceiveRequest receive = new ReceiveRequest().sge(mr, 0, 64);
        int room = fill(receiver(context, pd), receive);
        QueuePair qp = receiver(context, pd);   // the same queue sizes, so the same room
        for (int i = 0; i < room - 1; i++) {
            assertTrue(qp.tryPost(receive.wrId(i)));
        }
        ReceiveRequest first = new ReceiveRequest().wrId(100).sge(mr, 0, 64);
        first.next(new ReceiveRequest().wrId(101).sge(mr, 64, 64));
        RdmaException e = assertThrows(RdmaException.class, () -> qp.tryPost(first));
        assertTrue(e.getMessage().contains("wr_id 101"), e.getMessage());
    }
}
