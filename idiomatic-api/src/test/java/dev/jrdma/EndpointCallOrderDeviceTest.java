// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * The local endpoint is a value of the queue pair, not a step of its setup (issue 48): nothing
 * has to be called before {@link QueuePair#connect}, reading the endpoint twice gives the same
 * value (it used to draw a new PSN), and the port and GID entry are chosen when the queue pair
 * is built.
 */
@DeviceTest
class EndpointCallOrderDeviceTest {
    @Test
    void connectNeedsNothingBeforeItAndTheEndpointIsTheSameEveryRead() {
        try (Context context = TestDevices.device().open()) {
            QueuePair qp = TestDevices.rcQueuePair(context);
            CompletionQueue cq = qp.sendCompletionQueue();
            MemoryRegion buffer = qp.protectionDomain().allocate(4096, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            Endpoint first = qp.localEndpoint();
            assertEquals(first, qp.localEndpoint(), "a getter: same QPN, PSN, LID, GID, MTU every read");
            assertEquals(context.defaultGid(), qp.sourceGid(), "the default source");
            assertEquals(context.defaultGid().gid(), first.gid());
            assertEquals(qp.qpNumber(), first.qpn());

            qp.toInit();   // no port: the queue pair knows it
            assertEquals(QueuePairState.INIT, qp.state());
            qp.post(new ReceiveRequest().wrId(1).sge(buffer, 2048, 2048));   // receives may be posted in INIT
            qp.connect(qp.localEndpoint());   // from INIT, to itself
            assertEquals(QueuePairState.RTS, qp.state());
            assertEquals(first, qp.localEndpoint(), "connecting does not change the endpoint");

            int length = buffer.putString(0, "to myself");
            qp.post(new SendRequest().wrId(2).sge(buffer, 0, length));
            WorkCompletion wc = new WorkCompletion();
            String received = null;
            for (int i = 0; i < 2; i++) {
                cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
                if (wc.opcode() == WorkCompletionOpcode.RECV) {
                    received = buffer.getString(2048, wc.byteLength());
                }
            }
            assertEquals("to myself", received);
        }
    }

    @Test
    void twoQueuePairsConnectInAnyOrder() {
        try (Loopback lo = new Loopback()) {
            assertEquals(QueuePairState.RTS, lo.a.state());
            assertEquals(lo.b.localEndpoint().psn(), lo.endpointB.psn());
        }
    }

    @Test
    void theSourceIsChosenWhenTheQueuePairIsBuilt() {
        try (Context context = TestDevices.device().open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4);
            GidEntry gid = TestDevices.gid(context);
            QueuePair chosen = pd.queuePair(QueuePairType.RC).completionQueue(cq)
                    .sourceGid(gid.port(), gid.index()).build();
            assertEquals(gid, chosen.sourceGid());
            assertEquals(gid.gid(), chosen.localEndpoint().gid());
            IllegalArgumentException unused = assertThrows(IllegalArgumentException.class,
                    () -> pd.queuePair(QueuePairType.RC).completionQueue(cq).sourceGid(gid.port(), 4000));
            assertTrue(unused.getMessage().contains("GID index 4000"), unused.getMessage());
            QueuePair ud = pd.queuePair(QueuePairType.UD).completionQueue(cq).sourceGid(gid).build();
            ud.toInit();
            ud.toRtr();
            ud.toRts();
            assertEquals(QueuePairState.RTS, ud.state());
            chosen.close();
            assertThrows(IllegalStateException.class, chosen::localEndpoint);
        }
    }
}
