// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * UD multicast on one device: two queue pairs attached to a group receive what a third sends
 * to the group; a detached one does not.
 *
 * <p>One node needs the IP-level join that rxe leaves out: rxe's attach programs the group's
 * MAC into its netdev, but the kernel loops a multicast packet sent from this host back to this
 * host only when the host is an IP member of the group on that interface (the route is then
 * RTCF_LOCAL); otherwise the packet only leaves through the wire (here the veth pair, to rxe1).
 * A socket joining the group on the device's netdev makes the host a member, as rdma_cm's
 * rdma_join_multicast does on RoCE.
 */
@DeviceTest
@EveryKernel
class MulticastDeviceTest extends DeviceFixture {
    private static final int QKEY = ConnectionOptions.DEFAULTS.qkey();
    private static final int GRH = 40;
    private static final int SLOT = 512;

    @Test
    @Exercises({"ibv_attach_mcast", "ibv_detach_mcast"})
    void attachedQueuePairsReceiveTheGroupsDatagramsAndADetachedOneDoesNot() throws IOException {
        InetAddress address = InetAddress.getByName("239.1.2.3");
        MulticastGroup group = MulticastGroup.ofIp(address);
        GidEntry gid = TestDevices.gid(context);
        CompletionQueue cq = context.createCompletionQueue(32);
        QueuePair r1 = udQueuePair(cq);
        QueuePair r2 = udQueuePair(cq);
        QueuePair sender = udQueuePair(cq);
        MemoryRegion mr = pd.allocate(8192);
        MulticastMembership m1 = r1.attachMulticast(group);
        MulticastMembership m2 = r2.attachMulticast(group);
        assertEquals(group, m1.group());
        assertTrue(r1.dependents().contains(m1), "the membership belongs to its queue pair");
        // Two receives each: r1 in slots 0 and 1, r2 in slots 4 and 5.
        ReceiveRequest recv = new ReceiveRequest();
        for (int i = 0; i < 2; i++) {
            r1.post(recv.wrId(100 + i).sge(mr, (long) i * SLOT, SLOT));
            r2.post(recv.wrId(200 + i).sge(mr, (long) (4 + i) * SLOT, SLOT));
        }
        AddressHandle toGroup = pd.createAddressHandle(group, gid);
        NetworkInterface netdev = NetworkInterface.getByIndex(gid.ifindex());
        try (MulticastSocket ipMember = new MulticastSocket(0)) {
            ipMember.joinGroup(new InetSocketAddress(address, 0), netdev);

            send(sender, mr, toGroup, MulticastGroup.QPN, "to the group", 1);
            Map<Long, String> got = receive(cq, mr, 2);
            assertEquals("to the group", got.get(100L), "r1 received: " + got);
            assertEquals("to the group", got.get(200L), "r2 received: " + got);

            // No route back from a datagram sent to a group: libibverbs refuses a multicast destination.
            WorkCompletion wc = new WorkCompletion();
            RdmaException noRoute = assertThrows(RdmaException.class,
                    () -> pd.createAddressHandle(TestDevices.PORT, lastReceive, mr.segment().asSlice(0, GRH)));
            assertEquals(Verb.IBV_CREATE_AH_FROM_WC, noRoute.verb());

            m2.detach();
            assertTrue(m2.isClosed());
            send(sender, mr, toGroup, MulticastGroup.QPN, "after r2 left", 2);
            assertEquals(Map.of(101L, "after r2 left"), receive(cq, mr, 1));
            // r2's next receive must be this unicast datagram, not the group's second one.
            Endpoint r2Endpoint = r2.localEndpoint();
            AddressHandle toR2 = pd.createAddressHandle(r2Endpoint, gid.port(), gid.index());
            send(sender, mr, toR2, r2.qpNumber(), "unicast to r2", 3);
            assertEquals(Map.of(201L, "unicast to r2"), receive(cq, mr, 1));
            assertTrue(cq.poll(wc) == 0 || wc.qpNumber() == sender.qpNumber(), "nothing else arrived: " + wc);
        }
        r1.close();
        assertTrue(m1.isClosed(), "closing the queue pair closes its membership first");
    }

    @Test
    void onlyUdQueuePairsJoinAndGroupsAreMulticastAddresses() throws IOException {
        MulticastGroup group = MulticastGroup.ofIp(InetAddress.getByName("ff0e::1:2"));
        assertEquals(0xff0e000000000000L, group.gid().high());
        QueuePair rc = pd.queuePair(QueuePairType.RC).completionQueue(context.createCompletionQueue(4)).build();
        assertThrows(IllegalArgumentException.class, () -> rc.attachMulticast(group));
        assertThrows(IllegalArgumentException.class, () -> MulticastGroup.ofIp(InetAddress.getByName("10.0.0.1")));
        assertThrows(IllegalArgumentException.class, () -> new MulticastGroup(Gid.ofIpv4(
                (java.net.Inet4Address) InetAddress.getByName("10.0.0.1")), 0));
    }

    private WorkCompletion lastReceive;

    private QueuePair udQueuePair(CompletionQueue cq) {
        QueuePair qp = pd.queuePair(QueuePairType.UD).completionQueue(cq).build();
        qp.toInit();
        qp.toRtr();
        qp.toRts();
        return qp;
    }

    private static void send(QueuePair sender, MemoryRegion mr, AddressHandle ah, int qpn, String text, long wrId) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        long at = 7L * SLOT;
        mr.segment().asSlice(at, bytes.length).copyFrom(MemorySegment.ofArray(bytes));
        sender.post(new SendRequest().wrId(wrId).sge(mr, at, bytes.length).datagram(ah, qpn, QKEY));
    }

    /** Takes completions until {@code receives} receives arrived; their wr_ids and payloads. */
    private Map<Long, String> receive(CompletionQueue cq, MemoryRegion mr, int receives) {
        Map<Long, String> got = new HashMap<>();
        while (got.size() < receives) {
            WorkCompletion wc = cq.take(new WorkCompletion(), TestDevices.TIMEOUT).checkSuccess();
            if (wc.opcode() == WorkCompletionOpcode.RECV) {
                long slot = wc.wrId() >= 200 ? 4 + wc.wrId() - 200 : wc.wrId() - 100;
                MemorySegment payload = mr.segment().asSlice(slot * SLOT + GRH, wc.byteLength() - GRH);
                got.put(wc.wrId(), new String(payload.toArray(JAVA_BYTE), StandardCharsets.US_ASCII));
                lastReceive = wc;
            }
        }
        return got;
    }
}
