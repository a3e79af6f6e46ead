// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.CloseStress.Step;
import dev.jrdma.testing.DeviceTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ConcurrentCloseDeviceTest}'s stress for the extended post and poll APIs: closing any of
 * their objects while other threads post, poll and re-post throws IllegalStateException in those
 * threads, never crashes the JVM.
 */
@DeviceTest
class ConcurrentCloseExtendedDeviceTest {
    /** What an extended round closes first. */
    enum ExtendedTarget { CONTEXT, EXTENDED_COMPLETION_QUEUE, EXTENDED_QUEUE_PAIR, PROTECTION_DOMAIN, MEMORY_REGION }

    /**
     * The extended post and poll APIs under the same stress: one thread posts batches through an
     * {@link ExtendedSendQueue} (closing an open batch when a call throws), one polls the
     * extended CQ by batch and by the raw start/next/end loop, one re-posts receives, while the
     * round closes one of the objects at a random moment.
     */
    @Test
    void closingWhileExtendedPostAndPollRunThrowsIllegalStateNeverCrashes() throws Exception {
        CloseStress stress = new CloseStress();
        stress.rounds("extended round", 40, ExtendedTarget.values(), 3_000, target -> {
            try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.SEND, SendOp.RDMA_WRITE)) {
                ReceiveRequest receive = new ReceiveRequest().wrId(2).sge(lo.memB, 1024, 1024);
                ExtendedCompletions batch = new ExtendedCompletions(16);
                boolean[] raw = new boolean[1];
                List<Step> steps = List.of(
                        () -> {
                            try (var b = lo.sa.start()) {
                                b.wrId(1).signaled(true).send().sge(lo.memA, 0, 32);
                                b.wrId(3).rdmaWrite(lo.memB.remote(), 0).sge(lo.memA, 64, 64);
                                b.tryComplete();
                            }
                        },
                        () -> {
                            raw[0] = !raw[0];
                            if (!raw[0]) {
                                lo.cq.poll(batch);
                            } else if (lo.cq.startPoll()) {
                                try {
                                    while (lo.cq.nextPoll()) {
                                        lo.cq.byteLength();
                                    }
                                } finally {
                                    lo.cq.endPoll();
                                }
                            }
                        },
                        () -> lo.b.tryPost(receive));
                AutoCloseable closed = switch (target) {
                    case CONTEXT -> lo.context;
                    case EXTENDED_COMPLETION_QUEUE -> lo.cq;
                    case EXTENDED_QUEUE_PAIR -> lo.a;
                    case PROTECTION_DOMAIN -> lo.pd;
                    case MEMORY_REGION -> lo.memA;
                };
                stress.closeWhileRunning(steps, closed, lo.context);
            }
        }).assertWorkersEndedCleanly(3);
    }
}
