// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Atomics the provider refuses, and what each side of the RC connection sees: the initiator's
 * completion status, and whether the target's queue pair survives (a receive posted on it
 * beforehand either stays posted or is flushed when the target moves to ERR). rdma-core's
 * tests/test_atomic.py and test_mr.py check the same failures.
 */
@DeviceTest
@EveryKernel
class AtomicFailureDeviceTest {
    private static final long ATOMIC = 1;
    private static final long TARGETS_RECEIVE = 2;
    private static final long FOLLOWING = 3;
    private static final long START = 0x1000;

    /**
     * A local key the device does not know: jrdma cannot post one (an SGE names a registered
     * region of the queue pair's protection domain, checked in Java), so the request is built
     * through the bindings. The target is untouched.
     */
    @Test
    @Exercises("ibv_post_send")
    void aBadLkeyEndsInALocalProtectionErrorAndTheTargetGoesOn() {
        try (Loopback lo = new Loopback(); Arena arena = Arena.ofConfined()) {
            MemoryRegion foreign = lo.context.allocateProtectionDomain().allocate(64, Loopback.ALL);
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> lo.a.post(
                    new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).sge(foreign, 0, 8)
                            .remote(lo.memB.remote(0, 8)).compareAdd(5)));
            assertTrue(refused.getMessage().contains("but the queue is in protection domain"), refused.getMessage());

            MemorySegment wr = RawSendRequests.atomic(RawSendRequests.of(arena, rdma_h.IBV_WR_ATOMIC_FETCH_AND_ADD(),
                    lo.memA.address(), 8, lo.memA.lkey() ^ 0x100), ATOMIC, lo.memB.remote(0, 8), 5);
            Map<Long, WorkCompletionStatus> seen = fail(lo, () -> assertEquals(0, RawSendRequests.post(lo.a, arena, wr)),
                    WorkCompletionStatus.LOC_PROT_ERR, false);
            assertEquals(Map.of(ATOMIC, WorkCompletionStatus.LOC_PROT_ERR, FOLLOWING, WorkCompletionStatus.WR_FLUSH_ERR),
                    seen);
            assertEquals(QueuePairState.RTS, lo.b.state(), "the target goes on");
        }
    }

    @Test
    @Exercises("ibv_post_send")
    void aWrongRkeyEndsInARemoteAccessErrorOnBothSides() {
        try (Loopback lo = new Loopback()) {
            RemoteMemory wrong = new RemoteMemory(lo.memB.address(), 8, lo.memB.rkey() ^ 0x100);
            Map<Long, WorkCompletionStatus> seen = fail(lo, new SendRequest().opcode(SendOpcode.ATOMIC_CMP_AND_SWP)
                    .sge(lo.memA, 0, 8).remote(wrong).compareAdd(START).swap(7), WorkCompletionStatus.REM_ACCESS_ERR, true);
            assertBothEnded(lo, seen, WorkCompletionStatus.REM_ACCESS_ERR);
        }
    }

    @Test
    @Exercises("ibv_post_send")
    void aRegionWithoutRemoteAtomicEndsInARemoteAccessErrorOnBothSides() {
        Set<Access> noAtomic = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        try (Loopback lo = new Loopback(QueuePairType.RC, noAtomic, ConnectionOptions.DEFAULTS)) {
            Map<Long, WorkCompletionStatus> seen = fail(lo, new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(lo.memA, 0, 8).remote(lo.memB.remote(0, 8)).compareAdd(5), WorkCompletionStatus.REM_ACCESS_ERR, true);
            assertBothEnded(lo, seen, WorkCompletionStatus.REM_ACCESS_ERR);
        }
    }

    /**
     * The target's queue pair grants READ and WRITE but not atomics (its INIT access flags): rxe
     * answers with an invalid-request NAK, not an access error.
     */
    @Test
    @Exercises({"ibv_post_send", "ibv_modify_qp"})
    void aQueuePairWithoutRemoteAtomicAccessEndsInAnInvalidRequestOnBothSides() {
        ConnectionOptions noAtomic = ConnectionOptions.DEFAULTS.withRemoteAccess(
                EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ));
        try (Loopback lo = new Loopback(QueuePairType.RC, Loopback.ALL, noAtomic)) {
            assertEquals(EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ), lo.b.query().remoteAccess());
            Map<Long, WorkCompletionStatus> seen = fail(lo, new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD)
                    .sge(lo.memA, 0, 8).remote(lo.memB.remote(0, 8)).compareAdd(5), WorkCompletionStatus.REM_INV_REQ_ERR, true);
            assertBothEnded(lo, seen, WorkCompletionStatus.REM_INV_REQ_ERR);
        }
    }

    private static void assertBothEnded(Loopback lo, Map<Long, WorkCompletionStatus> seen,
                                        WorkCompletionStatus initiators) {
        assertEquals(Map.of(ATOMIC, initiators, FOLLOWING, WorkCompletionStatus.WR_FLUSH_ERR,
                TARGETS_RECEIVE, WorkCompletionStatus.WR_FLUSH_ERR), seen, "the target's receive is flushed");
        assertEquals(QueuePairState.ERR, lo.b.state());
        assertEquals(START, lo.memB.segment().get(JAVA_LONG, 0), "the target's memory is unchanged");
    }

    /**
     * Posts a receive on the target, the atomic and a SEND after it on the initiator, and
     * collects completions until the initiator's two and, when the target moved to ERR, its
     * flushed receive are in ({@code targetEnds}); returns each status by wr_id.
     */
    private static Map<Long, WorkCompletionStatus> fail(Loopback lo, SendRequest atomic,
                                                        WorkCompletionStatus expected, boolean targetEnds) {
        return fail(lo, () -> lo.a.post(atomic.wrId(ATOMIC)), expected, targetEnds);
    }

    private static Map<Long, WorkCompletionStatus> fail(Loopback lo, Runnable postAtomic,
                                                        WorkCompletionStatus expected, boolean targetEnds) {
        lo.memB.segment().set(JAVA_LONG, 0, START);
        lo.b.post(new ReceiveRequest().wrId(TARGETS_RECEIVE).sge(lo.memB, 4096, 64));
        postAtomic.run();
        Map<Long, WorkCompletionStatus> seen = new HashMap<>();
        WorkCompletion first = lo.take();
        seen.put(first.wrId(), first.status());
        if (first.wrId() == ATOMIC) {
            assertEquals(expected, first.status());
        }
        lo.a.post(new SendRequest().wrId(FOLLOWING).sge(lo.memA, 64, 8));
        int wanted = targetEnds ? 3 : 2;
        while (seen.size() < wanted) {
            WorkCompletion wc = lo.take();
            seen.put(wc.wrId(), wc.status());
        }
        return seen;
    }
}
