// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionQueue;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairState;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.TestDevices;
import dev.jrdma.WorkCompletion;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Datagram ids (port space UDP): a UD peer resolved by rdma_cm, and multicast groups. */
@DeviceTest
@EveryKernel
class CmDatagramDeviceTest extends CmTwoChannels {
    /** A UD receive starts with the 40-byte GRH area. */
    private static final int GRH = 40;
    private static final int DATAGRAMS = 3;

    private static String text(MemoryRegion mr, long offset, int length) {
        return new String(mr.segment().asSlice(offset, length).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    private static QueuePair udQueuePair(CmId id) {
        ProtectionDomain pd = id.context().allocateProtectionDomain();
        CompletionQueue cq = id.context().createCompletionQueue(16);
        return id.createQueuePair(pd.queuePair(QueuePairType.UD).completionQueue(cq).maxWorkRequests(8, 8));
    }

    /**
     * The client resolves the server's UD queue pair through rdma_cm (its QPN, Q_Key and
     * address vector, SIDR) and sends datagrams with rdma_post_ud_send; the server receives them
     * with rdma_post_recv and rdma_get_recv_comp, each from the client's QPN.
     */
    @Test
    @Exercises({"rdma_post_ud_send", "rdma_post_recv", "rdma_get_recv_comp", "rdma_get_send_comp"})
    void datagramsReachTheUdPeerRdmaCmResolved() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = serverChannel.createDatagramId();
        listener.bind(new InetSocketAddress(address, 0));
        listener.listen(1);
        CompletableFuture<Integer> serverQpn = new CompletableFuture<>();
        CompletableFuture<List<String>> server = CompletableFuture.supplyAsync(() -> {
            CmId id = listener.awaitConnectRequest(TIMEOUT).id();
            QueuePair qp = udQueuePair(id);
            assertEquals(QueuePairState.RTS, qp.state(), "rdma_create_qp brings a UD queue pair to RTS");
            RdmaVerbs verbs = id.verbs();
            MemoryRegion mr = verbs.registerMessages(Arena.ofAuto().allocate(4096));
            for (int i = 0; i < DATAGRAMS; i++) {
                verbs.postReceive(i, mr, i * 256L, 256);
            }
            serverQpn.complete(qp.qpNumber());
            id.accept(new byte[0], TIMEOUT);
            List<String> received = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < DATAGRAMS; i++) {
                verbs.awaitReceiveCompletion(wc, TIMEOUT).checkSuccess();
                received.add(wc.sourceQpNumber() + ":" + text(mr, wc.wrId() * 256 + GRH, wc.byteLength() - GRH));
            }
            return received;
        });

        CmId client = clientChannel.createDatagramId();
        client.resolveAddress(new InetSocketAddress(address, listener.localPort()), TIMEOUT);
        client.resolveRoute(TIMEOUT);
        QueuePair qp = udQueuePair(client);
        DatagramPeer peer = client.connectDatagram(new byte[0], TIMEOUT);
        assertEquals((int) serverQpn.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), peer.qpNumber(), peer.toString());
        assertEquals(rdma_h.RDMA_UDP_QKEY(), peer.qkey());
        assertTrue(peer.isGlobal(), "RoCE routes by the GRH");
        AddressHandle ah = peer.createAddressHandle(qp.protectionDomain());
        RdmaVerbs verbs = client.verbs();
        MemoryRegion mr = verbs.registerMessages(Arena.ofAuto().allocate(4096));
        List<String> sent = new ArrayList<>();
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < DATAGRAMS; i++) {
            byte[] message = ("datagram " + i).getBytes(StandardCharsets.US_ASCII);
            mr.segment().asSlice(i * 64L).copyFrom(MemorySegment.ofArray(message));
            verbs.postDatagram(i, mr, i * 64L, message.length, RdmaVerbs.SIGNALED, ah, peer.qpNumber());
            assertEquals(i, verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess().wrId());
            sent.add(qp.qpNumber() + ":datagram " + i);
        }
        assertEquals(sent, server.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
    }

    /**
     * Two receivers join a group (rdma_join_multicast, and rdma_join_multicast_ex as a full
     * member); a sender joins it send-only (rdma_join_multicast_ex) and sends to the group's
     * QPN and Q_Key: both receivers get every datagram. All three leave (rdma_leave_multicast).
     */
    @Test
    @Exercises({"rdma_join_multicast", "rdma_join_multicast_ex", "rdma_leave_multicast"})
    void bothReceiversJoinedToAGroupGetWhatASenderSends() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        InetAddress group = InetAddress.getByName("239.0.35.1");
        CmId[] receivers = {serverChannel.createDatagramId(), serverChannel.createDatagramId()};
        MulticastJoin[] joined = new MulticastJoin[2];
        MemoryRegion[] buffers = new MemoryRegion[2];
        for (int r = 0; r < 2; r++) {
            CmId id = receivers[r];
            id.bind(new InetSocketAddress(address, 0));
            id.resolveAddress(new InetSocketAddress(group, 0), TIMEOUT);
            QueuePair qp = udQueuePair(id);
            buffers[r] = qp.protectionDomain().allocate(4096);
            for (int i = 0; i < DATAGRAMS; i++) {
                qp.post(new ReceiveRequest().wrId(i).sge(buffers[r], i * 256L, 256));
            }
            joined[r] = r == 0 ? MulticastJoin.join(id, group, TIMEOUT)
                    : MulticastJoin.join(id, group, MulticastJoin.JoinType.FULL_MEMBER, TIMEOUT);
            assertEquals(DatagramPeer.MULTICAST_QPN, joined[r].destination().qpNumber());
        }
        assertEquals(joined[0].destination().gid(), joined[1].destination().gid(), "one group, one MGID");

        CmId sender = clientChannel.createDatagramId();
        sender.bind(new InetSocketAddress(address, 0));
        sender.resolveAddress(new InetSocketAddress(group, 0), TIMEOUT);
        QueuePair qp = udQueuePair(sender);
        MulticastJoin sending = MulticastJoin.join(sender, group, MulticastJoin.JoinType.SEND_ONLY_FULL_MEMBER,
                TIMEOUT);
        DatagramPeer destination = sending.destination();
        AddressHandle ah = destination.createAddressHandle(qp.protectionDomain());
        MemoryRegion mr = qp.protectionDomain().allocate(4096);
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < DATAGRAMS; i++) {
            byte[] message = ("to the group " + i).getBytes(StandardCharsets.US_ASCII);
            mr.segment().asSlice(i * 64L).copyFrom(MemorySegment.ofArray(message));
            qp.post(new SendRequest().wrId(i).sge(mr, i * 64L, message.length)
                    .datagram(ah, destination.qpNumber(), destination.qkey()));
            qp.sendCompletionQueue().take(wc, TIMEOUT).checkSuccess();
        }
        for (int r = 0; r < 2; r++) {
            QueuePair rq = receivers[r].queuePair();
            for (int i = 0; i < DATAGRAMS; i++) {
                rq.receiveCompletionQueue().take(wc, TIMEOUT).checkSuccess();
                assertEquals("to the group " + wc.wrId(), text(buffers[r], wc.wrId() * 256 + GRH,
                        wc.byteLength() - GRH), "receiver " + r);
                assertEquals(qp.qpNumber(), wc.sourceQpNumber());
            }
        }
        sending.close();
        joined[0].close();
        joined[1].close();
        assertTrue(joined[0].isClosed() && joined[1].isClosed() && sending.isClosed());
    }
}
