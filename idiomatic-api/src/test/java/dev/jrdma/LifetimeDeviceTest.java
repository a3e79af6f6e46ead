// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Use after close, double close and closing parents with live children, for every type. */
@DeviceTest
class LifetimeDeviceTest extends DeviceFixture {
    private static void assertClosed(Object object, Executable use) {
        IllegalStateException e = assertThrows(IllegalStateException.class, use);
        assertEquals(object + " is closed", e.getMessage());
    }

    @Test
    @Exercises({
            "ibv_destroy_qp", "ibv_dereg_mr", "ibv_destroy_cq", "ibv_dealloc_pd", "ibv_destroy_comp_channel",
            "ibv_close_device"})
    void everyTypeRefusesUseAfterCloseAndClosesTwice() {
        CompletionQueue cq = context.createCompletionQueue(8);
        MemoryRegion mr = pd.allocate(4096, Loopback.ALL);
        QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();

        qp.close();
        qp.close();
        assertClosed(qp, qp::state);
        assertClosed(qp, () -> qp.toInit());
        assertClosed(qp, () -> qp.localEndpoint());
        assertClosed(qp, () -> qp.post(new ReceiveRequest()));
        assertClosed(qp, () -> qp.post(new SendRequest()));
        assertClosed(qp, qp::toError);

        mr.close();
        mr.close();
        assertClosed(mr, mr::lkey);
        assertClosed(mr, mr::segment);
        assertClosed(mr, () -> new ReceiveRequest().sge(mr));

        cq.close();
        cq.close();
        assertClosed(cq, () -> cq.poll(new WorkCompletion()));
        assertClosed(cq, () -> cq.poll(new WorkCompletions(4)));
        assertClosed(cq, () -> pd.queuePair(QueuePairType.RC).completionQueue(cq).build());

        pd.close();
        pd.close();
        assertClosed(pd, () -> pd.allocate(4096));
        assertClosed(pd, () -> pd.createAddressHandle(new Endpoint(1, 0, 0, Gid.ZERO, Mtu.MTU_1024), 1, 0));
        assertClosed(pd, () -> pd.queuePair(QueuePairType.RC));

        CompletionChannel channel = context.createCompletionChannel();
        channel.close();
        channel.close();
        assertClosed(channel, () -> channel.await(java.time.Duration.ZERO));
        assertClosed(channel, () -> context.createCompletionQueue(1, channel));

        context.close();
        context.close();
        assertClosed(context, context::queryDevice);
        assertClosed(context, () -> context.queryPort(1));
        assertClosed(context, () -> context.gidTable(1));
        assertClosed(context, context::allocateProtectionDomain);
        assertClosed(context, () -> context.createCompletionQueue(1));
    }

    @Test
    void closingAProtectionDomainClosesItsRegionsAndQueuePairsFirst() {
        CompletionQueue cq = context.createCompletionQueue(8);
        MemoryRegion mr1 = pd.allocate(4096);
        QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
        MemoryRegion mr2 = pd.allocate(4096);
        assertEquals(List.of(mr1, qp, mr2), pd.dependents());
        assertEquals(List.of(qp), cq.dependents());
        // ibv_dealloc_pd with live MRs/QPs would fail with EBUSY: closing must not.
        pd.close();
        assertTrue(mr1.isClosed() && qp.isClosed() && mr2.isClosed());
        assertTrue(cq.dependents().isEmpty());
        assertFalse(cq.isClosed());
        assertEquals(List.of(cq), context.dependents());
    }

    @Test
    void closingACompletionQueueClosesItsQueuePairs() {
        CompletionQueue send = context.createCompletionQueue(8);
        CompletionQueue receive = context.createCompletionQueue(8);
        QueuePair qp = pd.queuePair(QueuePairType.RC).sendCompletionQueue(send).receiveCompletionQueue(receive)
                .build();
        receive.close();
        assertTrue(qp.isClosed());
        assertTrue(pd.dependents().isEmpty() && send.dependents().isEmpty());
    }

    @Test
    void closingTheContextClosesEverything() {
        CompletionQueue cq = context.createCompletionQueue(8);
        MemoryRegion mr = pd.allocate(4096);
        QueuePair qp = pd.queuePair(QueuePairType.UD).completionQueue(cq).build();
        CompletionChannel channel = context.createCompletionChannel();
        CompletionQueue notified = context.createCompletionQueue(8, channel);
        AddressHandle ah = pd.createAddressHandle(qp.localEndpoint(),
                TestDevices.PORT, TestDevices.gid(context).index());
        context.close();
        for (NativeResource r : List.<NativeResource>of(pd, cq, mr, qp, channel, notified, ah)) {
            assertTrue(r.isClosed(), r.toString());
        }
    }
}
