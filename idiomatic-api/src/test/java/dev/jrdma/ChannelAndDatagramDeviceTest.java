// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Completion channels (waiting without spinning) and UD datagrams through an address handle. */
@DeviceTest
@EveryKernel
class ChannelAndDatagramDeviceTest {
    /** Two queue pairs of one type, connected to each other, whose 16-entry CQ signals a completion channel. */
    private record Channelled(CompletionChannel channel, CompletionQueue cq, ProtectionDomain pd, QueuePair a,
                              QueuePair b) {
        static Channelled open(Context context, QueuePairType type) {
            CompletionChannel channel = context.createCompletionChannel();
            CompletionQueue cq = context.createCompletionQueue(16, channel);
            ProtectionDomain pd = context.allocateProtectionDomain();
            QueuePair a = pd.queuePair(type).completionQueue(cq).build();
            QueuePair b = pd.queuePair(type).completionQueue(cq).build();
            TestDevices.connectEachOther(a, b);
            return new Channelled(channel, cq, pd, a, b);
        }
    }

    @Test
    @Exercises({"ibv_create_comp_channel", "ibv_req_notify_cq", "ibv_get_cq_event", "ibv_ack_cq_events"})
    void aCompletionChannelWakesTheWaiterForTheRightQueue() {
        try (Context context = TestDevices.device().open()) {
            Channelled c = Channelled.open(context, QueuePairType.RC);
            CompletionChannel channel = c.channel();
            CompletionQueue cq = c.cq();
            QueuePair a = c.a();
            QueuePair b = c.b();
            MemoryRegion mr = c.pd().allocate(4096);

            cq.requestNotification(false);
            RdmaTimeoutException quiet = assertThrows(RdmaTimeoutException.class,
                    () -> channel.await(Duration.ofMillis(50)), "no completion yet");
            assertEquals("no completion event on " + channel + " within 50 ms", quiet.getMessage());
            TestDevices.sendAndAwaitChannel(a, b, mr, cq, channel);

            // Closing the channel closes its CQ first (and so the QPs on it).
            channel.close();
            assertTrue(cq.isClosed() && a.isClosed() && b.isClosed());
            assertThrows(IllegalStateException.class, () -> channel.await(Duration.ZERO));
        }
    }

    /**
     * Completion events on UD (rdma-core's tests/test_cq_events.py runs RC and UD): the
     * datagram's completions wake the channel, and after a re-arm a solicited datagram does
     * again.
     */
    @Test
    @Exercises({"ibv_req_notify_cq", "ibv_get_cq_event", "ibv_ack_cq_events"})
    void aCompletionChannelWakesTheWaiterForUdDatagrams() {
        try (Context context = TestDevices.device().open()) {
            Channelled c = Channelled.open(context, QueuePairType.UD);
            CompletionChannel channel = c.channel();
            CompletionQueue cq = c.cq();
            QueuePair a = c.a();
            QueuePair b = c.b();
            int gid = TestDevices.gid(context).index();
            Endpoint eb = b.localEndpoint();
            MemoryRegion mr = c.pd().allocate(4096);
            AddressHandle ah = c.pd().createAddressHandle(eb, TestDevices.PORT, gid);
            WorkCompletion wc = new WorkCompletion();
            for (int round = 0; round < 2; round++) {
                boolean solicited = round == 1;
                cq.requestNotification(solicited);
                assertThrows(RdmaTimeoutException.class, () -> channel.await(Duration.ofMillis(20)), "nothing yet");
                b.post(new ReceiveRequest().wrId(10 + round).sge(mr, 1024, 40 + 64));
                a.post(new SendRequest().wrId(20 + round).sge(mr, 0, 16).solicited(solicited)
                        .datagram(ah, eb.qpn(), ConnectionOptions.DEFAULTS.qkey()));
                assertSame(cq, channel.await(TestDevices.TIMEOUT));
                boolean received = false;
                for (int i = 0; i < 2; i++) {
                    cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
                    if (wc.wrId() == 10 + round) {
                        assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
                        assertEquals(40 + 16, wc.byteLength());
                        received = true;
                    }
                }
                assertTrue(received, "round " + round);
            }
        }
    }

    @Test
    @Exercises({"ibv_create_ah", "ibv_destroy_ah"})
    void udDatagramThroughAnAddressHandle() {
        try (Loopback lo = new Loopback(QueuePairType.UD, Loopback.ALL, ConnectionOptions.DEFAULTS)) {
            QueuePair a = lo.a;
            QueuePair b = lo.b;
            Endpoint eb = lo.endpointB;
            int gid = TestDevices.gid(lo.context).index();
            MemoryRegion mr = lo.memA;
            byte[] datagram = "a UD datagram".getBytes(StandardCharsets.US_ASCII);
            mr.segment().copyFrom(MemorySegment.ofArray(datagram));
            // A UD receive buffer starts with room for the 40-byte GRH.
            b.post(new ReceiveRequest().wrId(1).sge(mr, 1024, 40 + 256));
            AddressHandle ah = lo.pd.createAddressHandle(eb, TestDevices.PORT, gid);
            SendRequest send = new SendRequest().wrId(2).sge(mr, 0, datagram.length);
            assertThrows(IllegalStateException.class, () -> a.post(send), "no destination yet");
            a.post(send.datagram(ah, eb.qpn(), ConnectionOptions.DEFAULTS.qkey()));
            WorkCompletion wc = new WorkCompletion();
            boolean received = false;
            for (int i = 0; i < 2; i++) {
                lo.cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
                if (wc.wrId() == 1) {
                    assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
                    assertEquals(40 + datagram.length, wc.byteLength());
                    assertEquals(a.qpNumber(), wc.sourceQpNumber());
                    assertTrue(wc.hasGrh());
                    received = true;
                }
            }
            assertTrue(received);
            assertEquals("a UD datagram", new String(mr.segment().asSlice(1024 + 40, datagram.length).toArray(JAVA_BYTE),
                    StandardCharsets.US_ASCII));
            ah.close();
            assertThrows(IllegalStateException.class, () -> a.post(send));
            assertThrows(IllegalArgumentException.class, () -> a.post(new SendRequest()
                    .opcode(SendOpcode.RDMA_WRITE).sge(mr, 0, 8).remote(mr.remote(0, 8))));
        }
    }
}
