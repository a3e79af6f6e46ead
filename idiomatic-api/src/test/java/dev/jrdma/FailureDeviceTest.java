// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Misuse that must end in a clear exception or a failed completion, never a crash. */
@DeviceTest
class FailureDeviceTest {
    private static void assertMessage(Throwable e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "'" + part + "' not in: " + e.getMessage());
        }
    }

    /** Polls {@code n} completions and returns their statuses by wr_id. */
    private static Map<Long, WorkCompletionStatus> statuses(Loopback lo, int n) {
        Map<Long, WorkCompletionStatus> byId = new HashMap<>();
        for (int i = 0; i < n; i++) {
            WorkCompletion wc = lo.take();
            byId.put(wc.wrId(), wc.status());
        }
        return byId;
    }

    @Test
    void rdmaWriteWithoutRemoteWriteRightEndsInRemoteAccessError() {
        try (Loopback lo = new Loopback(QueuePairType.RC, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ),
                ConnectionOptions.DEFAULTS)) {
            lo.a.post(new SendRequest().wrId(9).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 64)
                    .remote(lo.memB.remote(0, 64)));
            WorkCompletion wc = lo.take();
            assertEquals(9, wc.wrId());
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, wc.status());
            WorkCompletionException e = assertThrows(WorkCompletionException.class, wc::checkSuccess);
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, e.status());
            assertMessage(e, "wr_id 9", "REM_ACCESS_ERR", "remote access error");
            // The requester moved to ERR; later requests are flushed, not lost.
            assertEquals(QueuePairState.ERR, lo.a.state());
            lo.a.post(new SendRequest().wrId(10).sge(lo.memA, 0, 8));
            assertEquals(WorkCompletionStatus.WR_FLUSH_ERR, lo.take().status());
        }
    }

    @Test
    void aReceiveBufferTooSmallEndsInLocalLengthError() {
        try (Loopback lo = new Loopback()) {
            lo.b.post(new ReceiveRequest().wrId(1).sge(lo.memB, 0, 16));
            lo.a.post(new SendRequest().wrId(2).sge(lo.memA, 0, 100));
            Map<Long, WorkCompletionStatus> s = statuses(lo, 2);
            // Hardware reports LOC_LEN_ERR. rxe in Linux 6.1 fails the copy with -EINVAL rather than
            // -ENOSPC and so reports a malformed WQE (LOC_QP_OP_ERR) instead.
            WorkCompletionStatus expected = lo.context.name().startsWith("rxe")
                    ? WorkCompletionStatus.LOC_QP_OP_ERR : WorkCompletionStatus.LOC_LEN_ERR;
            assertEquals(expected, s.get(1L), s.toString());
            assertTrue(s.get(2L) != WorkCompletionStatus.SUCCESS, s.toString());
        }
    }

    @Test
    void aSendWithoutReceiveAndNoRnrRetriesEndsInRnrRetryExceeded() {
        try (Loopback lo = new Loopback(QueuePairType.RC, Loopback.ALL, ConnectionOptions.DEFAULTS.withRnrRetry(0))) {
            lo.a.post(new SendRequest().wrId(3).sge(lo.memA, 0, 8));
            WorkCompletion wc = lo.take();
            assertEquals(3, wc.wrId());
            assertEquals(WorkCompletionStatus.RNR_RETRY_EXC_ERR, wc.status());
        }
    }

    @Test
    void postingOnAQueuePairInResetInitOrErrIsRefused() {
        try (Context context = TestDevices.device().open()) {
            QueuePair qp = TestDevices.rcQueuePair(context);
            CompletionQueue cq = qp.sendCompletionQueue();
            MemoryRegion mr = qp.protectionDomain().allocate(4096);
            assertEquals(QueuePairState.RESET, qp.state());
            IllegalStateException send = assertThrows(IllegalStateException.class,
                    () -> qp.post(new SendRequest().wrId(7).sge(mr, 0, 8)));
            assertMessage(send, "wr_id 7", "RESET", qp.toString());
            assertThrows(IllegalStateException.class, () -> qp.post(new ReceiveRequest().wrId(8).sge(mr)));
            qp.toInit();
            assertEquals(QueuePairState.INIT, qp.state());
            qp.post(new ReceiveRequest().wrId(8).sge(mr));   // receives are allowed from INIT on
            assertMessage(assertThrows(IllegalStateException.class, () -> qp.post(new SendRequest().sge(mr, 0, 8))),
                    "INIT");
            // Moving to ERR flushes the posted receive.
            qp.toError();
            assertEquals(QueuePairState.ERR, qp.state());
            WorkCompletion wc = cq.take(new WorkCompletion(), TestDevices.TIMEOUT);
            assertEquals(8, wc.wrId());
            assertEquals(WorkCompletionStatus.WR_FLUSH_ERR, wc.status());
            // rxe (Linux 6.1) accepts a receive in ERR and never completes it: jrdma refuses both kinds.
            assertMessage(assertThrows(IllegalStateException.class,
                    () -> qp.post(new ReceiveRequest().wrId(9).sge(mr))), "wr_id 9", "ERR", "reset()");
            assertMessage(assertThrows(IllegalStateException.class,
                    () -> qp.post(new SendRequest().wrId(10).sge(mr, 0, 8))), "wr_id 10", "ERR", "reset()");
            assertEquals(0, cq.poll(wc), "no further completion");
        }
    }

    @Test
    void anIllegalTransitionIsExplained() {
        try (Context context = TestDevices.device().open()) {
            QueuePair qp = TestDevices.rcQueuePair(context);
            RdmaException e = assertThrows(RdmaException.class, qp::toRts);
            assertEquals(Verb.IBV_MODIFY_QP, e.verb());
            assertEquals(22, e.errno());
            assertTrue(e.is(Errno.EINVAL), "the errno by name");
            assertMessage(e, qp.toString(), "Invalid argument", "RESET -> RTS is not a valid transition");
            assertEquals(QueuePairState.RESET, qp.state());
        }
    }

    @Test
    void aFailedPostNamesTheRequest() {
        try (Loopback lo = new Loopback()) {
            // The second request of the chain has more SGEs than the queue pair allows.
            int tooMany = lo.b.capabilities().maxReceiveSges() + 1;
            ReceiveRequest bad = new ReceiveRequest(tooMany).wrId(2);
            for (int i = 0; i < tooMany; i++) {
                bad.sge(i, lo.memB, i * 8L, 8);
            }
            ReceiveRequest chain = new ReceiveRequest().wrId(1).sge(lo.memB, 0, 8).next(bad);
            RdmaException e = assertThrows(RdmaException.class, () -> lo.b.post(chain));
            assertEquals(Verb.IBV_POST_RECV, e.verb());
            assertMessage(e, "receive request wr_id 2 was not posted", lo.b.toString(), "errno " + e.errno());
        }
    }

    @Test
    void invalidWorkRequestsAreRefusedBeforeNativeCode() {
        try (Loopback lo = new Loopback()) {
            assertMessage(assertThrows(IllegalArgumentException.class, () -> lo.a.post(new SendRequest()
                    .opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).sge(lo.memA, 0, 8).remote(lo.memB.remote(4, 8)))),
                    "8-byte aligned");
            assertMessage(assertThrows(IllegalStateException.class, () -> lo.a.post(new SendRequest()
                    .opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8))), "needs remote memory");
            assertThrows(IndexOutOfBoundsException.class, () -> new SendRequest().sge(lo.memA, Loopback.SIZE - 4, 8));
            assertMessage(assertThrows(IllegalArgumentException.class, () -> lo.a.post(new SendRequest()
                    .inline(true).sge(lo.memA, 0, 4096))), "inline");
            try (ProtectionDomain other = lo.context.allocateProtectionDomain();
                 MemoryRegion foreign = other.allocate(64)) {
                assertMessage(assertThrows(IllegalArgumentException.class,
                        () -> lo.a.post(new SendRequest().sge(foreign))), "but the queue is in");
            }
            assertEquals(0, lo.cq.poll(lo.wc), "nothing reached the device");
        }
    }

    @Test
    void ucAndUdQueuePairsReachRts() {
        try (Loopback uc = new Loopback(QueuePairType.UC, Loopback.ALL, ConnectionOptions.DEFAULTS)) {
            uc.memA.segment().fill((byte) 5);
            uc.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sge(uc.memA, 0, 64)
                    .remote(uc.memB.remote(0, 64)));
            assertEquals(WorkCompletionOpcode.RDMA_WRITE, uc.take().checkSuccess().opcode());
            assertEquals(5, uc.memB.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 63));
            assertThrows(IllegalArgumentException.class, () -> uc.a.post(new SendRequest()
                    .opcode(SendOpcode.RDMA_READ).sge(uc.memA, 0, 8).remote(uc.memB.remote(0, 8))));
        }
        try (Context context = TestDevices.device().open()) {
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair ud = context.allocateProtectionDomain().queuePair(QueuePairType.UD).completionQueue(cq).build();
            ud.toInit();
            ud.toRtr();
            ud.toRts();
            assertEquals(QueuePairState.RTS, ud.state());
            assertEquals(QueuePairType.UD, ud.type());
        }
    }
}
