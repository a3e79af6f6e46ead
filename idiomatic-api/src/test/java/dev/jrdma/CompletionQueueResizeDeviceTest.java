// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import org.junit.jupiter.api.Test;

/**
 * {@link CompletionQueue#resize}: down to 1, up again, and below the completions it still holds,
 * which the provider refuses with EINVAL (rdma-core's tests/test_cq.py test_resize_cq). The
 * queue under test is only a receive queue's, and nothing polls it until the refused resize was
 * tried: an RC SEND completes at the sender only after rxe's responder wrote the receive's
 * completion (it completes before it acknowledges), so when the sender has both of its
 * completions the receiver's queue holds two.
 */
@DeviceTest
@EveryKernel
class CompletionQueueResizeDeviceTest extends DeviceFixture {
    @Test
    @Exercises({"ibv_resize_cq", "ibv_create_cq"})
    void shrinkGrowAndShrinkBelowTheWaitingCompletions() {
        CompletionQueue sends = context.createCompletionQueue(16);
        CompletionQueue receives = context.createCompletionQueue(3);
        QueuePair a = pd.queuePair(QueuePairType.RC).completionQueue(sends).build();
        QueuePair b = pd.queuePair(QueuePairType.RC).sendCompletionQueue(sends).receiveCompletionQueue(receives).build();
        TestDevices.connectEachOther(a, b);
        MemoryRegion mr = pd.allocate(4096);

        receives.resize(1);
        assertTrue(receives.capacity() >= 1, "granted " + receives.capacity());
        receives.resize(7);
        assertTrue(receives.capacity() >= 7, "granted " + receives.capacity());

        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < 2; i++) {
            b.post(new ReceiveRequest().wrId(10 + i).sge(mr, 1024 + 64 * i, 64));
            a.post(new SendRequest().wrId(20 + i).sge(mr, 0, 16));
        }
        for (int i = 0; i < 2; i++) {
            sends.take(wc, TestDevices.TIMEOUT).checkSuccess();
        }
        int granted = receives.capacity();
        RdmaException refused = assertThrows(RdmaException.class, () -> receives.resize(1));
        assertEquals(Verb.IBV_RESIZE_CQ, refused.verb());
        assertEquals(Errno.EINVAL, refused.errno());
        assertTrue(refused.getMessage().endsWith("it holds more than 1 completions not yet polled: poll them first"),
                refused.getMessage());
        assertEquals(granted, receives.capacity(), "the refused resize changed nothing");

        for (int i = 0; i < 2; i++) {
            assertEquals(10 + i, receives.take(wc, TestDevices.TIMEOUT).checkSuccess().wrId(), "kept in order");
            assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
        }
        receives.resize(1);
        assertTrue(receives.capacity() >= 1);
        b.post(new ReceiveRequest().wrId(12).sge(mr, 2048, 64));
        a.post(new SendRequest().wrId(22).sge(mr, 0, 16));
        assertEquals(12, receives.take(wc, TestDevices.TIMEOUT).checkSuccess().wrId(), "the shrunk queue works");
    }

    @Test
    @Exercises("ibv_resize_cq")
    void aDepthPastTheDevicesMaximumIsNamed() {
        CompletionQueue cq = context.createCompletionQueue(4);
        int max = context.queryDevice().maxCqe();
        RdmaException e = assertThrows(RdmaException.class, () -> cq.resize(max + 1));
        assertEquals(Errno.EINVAL, e.errno());
        assertTrue(e.getMessage().endsWith("the device holds at most " + max + " completions per queue (max_cqe)"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cq.resize(0), "refused before the provider");
    }
}
