// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Answering a UD sender from its datagram's completion and GRH, without its endpoint. */
@DeviceTest
@EveryKernel
class ReplyToSenderDeviceTest {
    private static final int GRH = 40;
    private static final int QKEY = ConnectionOptions.DEFAULTS.qkey();

    @Test
    @Exercises({"ibv_init_ah_from_wc", "ibv_create_ah_from_wc"})
    void theServerAnswersFromTheCompletion() {
        try (Loopback lo = new Loopback(QueuePairType.UD, Loopback.ALL, ConnectionOptions.DEFAULTS)) {
            GidEntry gid = TestDevices.gid(lo.context);
            byte[] question = "who am I?".getBytes(StandardCharsets.US_ASCII);
            lo.memA.segment().copyFrom(MemorySegment.ofArray(question));
            lo.b.post(new ReceiveRequest().wrId(1).sge(lo.memB, 0, GRH + 256));
            lo.a.post(new ReceiveRequest().wrId(2).sge(lo.memA, 1024, GRH + 256));
            AddressHandle toB = lo.pd.createAddressHandle(lo.endpointB, TestDevices.PORT, gid.index());
            lo.a.post(new SendRequest().wrId(3).sge(lo.memA, 0, question.length).datagram(toB, lo.b.qpNumber(), QKEY));

            WorkCompletion wc = new WorkCompletion();
            WorkCompletion received = null;
            for (int i = 0; i < 2 && received == null; i++) {
                lo.cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
                if (wc.wrId() == 1) {
                    received = wc;
                }
            }
            assertTrue(received != null, "b received the datagram");
            MemorySegment grh = lo.memB.segment().asSlice(0, GRH);
            AddressVector route = lo.context.replyAddress(TestDevices.PORT, received, grh);
            assertTrue(route.global(), "RoCE routes by GID");
            assertEquals(lo.endpointA.gid(), route.gid(), "the sender's GID, read from the GRH");
            assertEquals(gid.index(), route.sourceGidIndex(), "the GID the datagram was sent to");
            assertEquals(TestDevices.PORT, route.port());
            assertEquals(ConnectionOptions.DEFAULTS.hopLimit(), route.hopLimit(), "the sender's TTL");

            AddressHandle back = lo.pd.createAddressHandle(TestDevices.PORT, received, grh);
            assertTrue(back.toString().contains(lo.endpointA.gid().toString()), back.toString());
            int sender = received.sourceQpNumber();
            assertEquals(lo.a.qpNumber(), sender);
            byte[] answer = "QP 0x..".getBytes(StandardCharsets.US_ASCII);
            lo.memB.segment().asSlice(512).copyFrom(MemorySegment.ofArray(answer));
            lo.b.post(new SendRequest().wrId(4).sge(lo.memB, 512, answer.length).datagram(back, sender, QKEY));
            boolean answered = false;
            for (int i = 0; i < 3 && !answered; i++) {
                lo.cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
                if (wc.wrId() == 2) {
                    assertEquals(GRH + answer.length, wc.byteLength());
                    assertEquals(lo.b.qpNumber(), wc.sourceQpNumber());
                    answered = true;
                }
            }
            assertTrue(answered, "a received the answer");
            assertEquals("QP 0x..", new String(lo.memA.segment().asSlice(1024 + GRH, answer.length).toArray(JAVA_BYTE),
                    StandardCharsets.US_ASCII));
            assertThrows(IllegalArgumentException.class,
                    () -> lo.pd.createAddressHandle(TestDevices.PORT, wc, grh.asSlice(0, 20)));
        }
    }
}
