// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

@DeviceTest
@EveryKernel
class SharedReceiveQueueDeviceTest extends DeviceFixture {
    @Test
    @Exercises({"ibv_create_srq", "ibv_post_srq_recv", "ibv_destroy_srq"})
    void twoQueuePairsReceiveFromOneSharedQueue() {
        CompletionQueue cq = context.createCompletionQueue(32);
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(16, 1);
        assertTrue(srq.maxWorkRequests() >= 16 && srq.maxSges() >= 1);
        QueuePair[] senders = new QueuePair[2];
        QueuePair[] receivers = new QueuePair[2];
        for (int i = 0; i < 2; i++) {
            senders[i] = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            receivers[i] = pd.queuePair(QueuePairType.RC).completionQueue(cq).sharedReceiveQueue(srq).build();
            assertEquals(srq, receivers[i].sharedReceiveQueue().orElseThrow());
            Endpoint s = senders[i].localEndpoint();
            Endpoint r = receivers[i].localEndpoint();
            senders[i].connect(r);
            receivers[i].connect(s);
        }
        MemoryRegion mr = pd.allocate(4096);
        ReceiveRequest recv = new ReceiveRequest();
        for (int i = 0; i < 4; i++) {
            srq.post(recv.wrId(100 + i).sge(mr, 1024 + i * 64L, 64));
        }
        QueuePair receiver = receivers[0];
        assertThrows(IllegalStateException.class, () -> receiver.post(new ReceiveRequest().sge(mr, 0, 8)));
        senders[0].post(new SendRequest().wrId(1).sge(mr, 0, 8));
        senders[1].post(new SendRequest().wrId(2).sge(mr, 0, 9));
        Set<Integer> receivedOn = new HashSet<>();
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < 4; i++) {
            cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
            if (wc.opcode() == WorkCompletionOpcode.RECV) {
                assertTrue(wc.wrId() >= 100 && wc.wrId() < 104);
                receivedOn.add(wc.qpNumber());
            }
        }
        assertEquals(Set.of(receivers[0].qpNumber(), receivers[1].qpNumber()), receivedOn);

        srq.close();
        assertTrue(receivers[0].isClosed() && receivers[1].isClosed(), "closing the SRQ closes its QPs");
        assertTrue(!senders[0].isClosed());
        assertThrows(IllegalStateException.class, () -> srq.post(recv));
    }
}
