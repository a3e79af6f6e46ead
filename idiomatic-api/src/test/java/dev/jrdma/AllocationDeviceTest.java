// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.testing.DeviceTest;
import org.junit.jupiter.api.Test;

/**
 * The data path allocates nothing once warm: posting sends and receives, re-posting them with
 * a changed wr_id or flag, and polling completions one at a time or in batches. Measured with
 * the thread's allocated-bytes counter over thousands of operations, under whatever JIT the
 * tests run with: scripts/device-tests uses C1 only, which has no escape analysis, so any
 * object created per call (a boxed value, a MemorySegment wrapping a function pointer) would
 * show up here. This is an allocation assertion, not a timing one.
 */
@DeviceTest
class AllocationDeviceTest {
    private static final int ROUNDS = 2000;
    private static final int PASSES = 4;

    @Test
    void rdmaWritePostAndPollAllocateNothing() {
        try (Loopback lo = new Loopback()) {
            SendRequest write = new SendRequest().opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 64)
                    .remote(lo.memB.remote(0, 64));
            WorkCompletion wc = lo.wc;
            long bytes = 0;
            for (int pass = 0; pass < PASSES; pass++) {
                long before = Allocations.allocatedBytes();
                for (int i = 0; i < ROUNDS; i++) {
                    // Completion moderation toggles the flag between posts, as the bandwidth tests do.
                    lo.a.post(write.wrId(i).signaled((i & 1) == 0));
                    if ((i & 1) == 0) {
                        spinPoll(lo.cq, wc);
                    }
                }
                bytes = Allocations.since(before);
            }
            assertEquals(0, bytes, "bytes allocated by " + ROUNDS + " RDMA WRITE posts and their polls after warm-up");
        }
    }

    @Test
    void sendReceiveWithRepostAndBatchPollAllocateNothing() {
        try (Loopback lo = new Loopback()) {
            SendRequest send = new SendRequest().sge(lo.memA, 0, 2).inline(true);
            ReceiveRequest recv = new ReceiveRequest().sge(lo.memB, 0, 64);
            WorkCompletions batch = new WorkCompletions(4);
            long bytes = 0;
            for (int pass = 0; pass < PASSES; pass++) {
                long before = Allocations.allocatedBytes();
                for (int i = 0; i < ROUNDS; i++) {
                    lo.b.post(recv.wrId(i));
                    lo.a.post(send.wrId(i));
                    int seen = 0;
                    while (seen < 2) {
                        int n = lo.cq.poll(batch);
                        for (int k = 0; k < n; k++) {
                            WorkCompletion c = batch.get(k);
                            if (!c.isSuccess() || c.wrId() != i) {
                                throw new AssertionError(c.toString());
                            }
                        }
                        seen += n;
                    }
                }
                bytes = Allocations.since(before);
            }
            assertEquals(0, bytes, "bytes allocated by " + ROUNDS + " send/receive round trips after warm-up");
        }
    }

    /**
     * A perftest post list through the extended post API: four RDMA WRITEs built and posted in
     * one batch (every second signalled), the completions polled with a poll size below the
     * batch's capacity, as perftest's --cqe_poll does.
     */
    @Test
    void extendedPostListAndSizedPollAllocateNothing() {
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.RDMA_WRITE)) {
            RemoteMemory remote = lo.memB.remote(0, 256);
            CompletionQueue cq = lo.cq.asCompletionQueue();
            WorkCompletions batch = new WorkCompletions(16);
            long bytes = 0;
            for (int pass = 0; pass < PASSES; pass++) {
                long before = Allocations.allocatedBytes();
                for (int i = 0; i < ROUNDS; i++) {
                    ExtendedSendQueue q = lo.sa.start();
                    for (int j = 0; j < 4; j++) {
                        q.wrId(j).signaled((j & 1) == 1).rdmaWrite(remote, j * 64L).sge(lo.memA, j * 64L, 64);
                    }
                    q.complete();
                    int seen = 0;
                    while (seen < 2) {
                        int n = cq.poll(batch, 2);
                        for (int k = 0; k < n; k++) {
                            if (!batch.get(k).isSuccess()) {
                                throw new AssertionError(batch.get(k).toString());
                            }
                        }
                        seen += n;
                    }
                }
                bytes = Allocations.since(before);
            }
            assertEquals(0, bytes, "bytes allocated by " + ROUNDS + " extended post lists of 4 and their polls");
        }
    }

    /** Polls until one completion arrives; no clock and no Duration on the measured path. */
    private static void spinPoll(CompletionQueue cq, WorkCompletion wc) {
        long spins = 0;
        while (cq.poll(wc) == 0) {
            if (++spins > 2_000_000_000L) {
                throw new AssertionError("no completion on " + cq);
            }
        }
        if (!wc.isSuccess()) {
            throw new AssertionError(wc.toString());
        }
    }
}
