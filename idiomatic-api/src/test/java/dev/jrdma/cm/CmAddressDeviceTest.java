// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.TestDevices;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.CoreAccess;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** An rdma_cm id's addresses, rdma_cm's device list, and the options of rdma_set_option. */
@DeviceTest
@EveryKernel
class CmAddressDeviceTest extends CmTwoChannels {
    /** The handles below are the core's own: the test reaches them as dev.jrdma.cm does. */
    private static final CoreAccess CORE = CoreAccess.get();
    private static final int EADDRINUSE = 98;
    /** What the kernel's cma_check_port answers when either of two conflicting binds is a wildcard. */
    private static final int EADDRNOTAVAIL = 99;

    /** An RC queue pair of rdma_cm's on {@code id}. */
    private static QueuePair queuePair(CmId id) {
        ProtectionDomain pd = id.context().allocateProtectionDomain();
        CompletionQueue cq = id.context().createCompletionQueue(8);
        return id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
    }

    @Test
    @Exercises({"rdma_get_local_addr", "rdma_get_peer_addr", "rdma_get_src_port", "rdma_get_dst_port"})
    void bothEndsReportTheirOwnAndThePeersAddress() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = CmTestIds.listen(serverChannel, address, 1);
        InetSocketAddress serverAddress = new InetSocketAddress(address, listener.localPort());
        assertEquals(serverAddress, listener.localAddress());
        CompletableFuture<CmId> accepted = CompletableFuture.supplyAsync(() -> {
            CmId id = listener.awaitConnectRequest(TIMEOUT).id();
            queuePair(id);
            id.accept(new byte[0], TIMEOUT);
            return id;
        });
        CmId client = clientChannel.createId();
        assertEquals(null, client.localAddress(), "neither bound nor resolved: no address");
        client.resolveAddress(serverAddress, TIMEOUT);
        client.resolveRoute(TIMEOUT);
        assertEquals(serverAddress, client.peerAddress());
        InetSocketAddress clientAddress = client.localAddress();
        assertEquals(address, clientAddress.getAddress(), "rdma_cm picked the device's own address");
        assertTrue(clientAddress.getPort() > 0, "resolving bound an ephemeral port: " + clientAddress);
        queuePair(client);
        client.connect(new byte[0], TIMEOUT);
        CmId server = accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(serverAddress, server.localAddress());
        assertEquals(clientAddress, server.peerAddress(), "the server sees the client's address and port");
        server.close();   // destroying a connected id sends the DREQ
        client.awaitDisconnect(TIMEOUT);
    }

    @Test
    @Exercises({"rdma_get_devices", "rdma_free_devices"})
    void rdmaCmListsTheContextsItsIdsUse() {
        CmId client = CmTestIds.resolvedClient(clientChannel, TestDevices.ipv4Address(), 4791);
        CmDevices devices = CmDevices.open();
        try {
            List<Context> contexts = devices.contexts();
            assertTrue(contexts.stream().anyMatch(c -> c.name().equals(TestDevices.device().name())),
                    devices + " lists " + TestDevices.device().name());
            long used = CORE.handle(client.context()).address();
            assertTrue(contexts.stream().anyMatch(c -> CORE.handle(c).address() == used),
                    "the resolved id's context is one of rdma_cm's own");
            // A protection domain on one of them serves as well as one on the id's view.
            Context same = contexts.stream().filter(c -> CORE.handle(c).address() == used).findFirst().orElseThrow();
            try (ProtectionDomain pd = same.allocateProtectionDomain()) {
                assertTrue(pd.register(Arena.ofAuto().allocate(64)).lkey() != 0);
            }
            devices.close();
            assertTrue(contexts.stream().allMatch(Context::isClosed), "the views close with the list");
        } finally {
            devices.close();
        }
        assertTrue(!client.context().isClosed(), "librdmacm keeps the device open for its ids");
    }

    /**
     * TYPE_OF_SERVICE becomes the traffic class of the path rdma_cm gives the queue pair, and
     * ACK_TIMEOUT the queue pair's local ACK timeout: both read back from the device.
     */
    @Test
    @Exercises("rdma_set_option")
    void typeOfServiceAndAckTimeoutReachTheQueuePair() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = CmTestIds.listen(serverChannel, address, 1);
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
            CmId id = listener.awaitConnectRequest(TIMEOUT).id();
            queuePair(id);
            id.accept(new byte[0], TIMEOUT);
            id.awaitDisconnect(TIMEOUT);
            id.close();   // the DREP: the client's disconnect completes
        });
        CmId client = clientChannel.createId();
        client.setOption(CmOption.TYPE_OF_SERVICE, 0x48);
        client.setOption(CmOption.ACK_TIMEOUT, 19);
        client.resolveAddress(new InetSocketAddress(address, listener.localPort()), TIMEOUT);
        client.resolveRoute(TIMEOUT);
        QueuePair qp = queuePair(client);
        client.connect(new byte[0], TIMEOUT);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            assertEquals(0, rdma_h.ibv_query_qp(CORE.handle(qp), attr, rdma_h.IBV_QP_AV() | rdma_h.IBV_QP_TIMEOUT(),
                    init));
            MemorySegment grh = ibv_ah_attr.grh(ibv_qp_attr.ah_attr(attr));
            assertEquals(0x48, Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)));
            assertEquals(19, ibv_qp_attr.timeout(attr));
        }
        client.disconnect(TIMEOUT);
        server.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThrows(IllegalArgumentException.class, () -> client.setOption(CmOption.ACK_TIMEOUT, 32));
    }

    @Test
    @Exercises("rdma_set_option")
    void reuseAddressLetsTwoIdsBindOnePort() {
        InetAddress address = TestDevices.ipv4Address();
        CmId first = serverChannel.createId();
        first.setOption(CmOption.REUSE_ADDRESS, true);
        first.bind(new InetSocketAddress(address, 0));
        InetSocketAddress taken = new InetSocketAddress(address, first.localPort());
        CmId second = serverChannel.createId();
        second.setOption(CmOption.REUSE_ADDRESS, true);
        second.bind(taken);
        assertEquals(taken, second.localAddress());
        CmId third = serverChannel.createId();
        RdmaException e = assertThrows(RdmaException.class, () -> third.bind(taken));
        assertEquals(EADDRINUSE, e.errno(), e.getMessage());
        assertEquals(Verb.RDMA_BIND_ADDR, e.verb());
    }

    /**
     * An IPv6 wildcard bind takes the IPv4 port as well unless AF_ONLY is set (Linux's default,
     * bindv6only 0), as with sockets.
     */
    @Test
    @Exercises("rdma_set_option")
    void afOnlyKeepsAnIpv6WildcardBindOffTheIpv4Port() throws Exception {
        InetAddress any6 = InetAddress.getByName("::");
        InetAddress any4 = InetAddress.getByName("0.0.0.0");
        CmId v6only = serverChannel.createId();
        v6only.setOption(CmOption.AF_ONLY, true);
        v6only.bind(new InetSocketAddress(any6, 0));
        CmId v4 = serverChannel.createId();
        v4.bind(new InetSocketAddress(any4, v6only.localPort()));
        assertEquals(v6only.localPort(), v4.localPort());

        CmId both = serverChannel.createId();
        both.bind(new InetSocketAddress(any6, 0));
        CmId refused = serverChannel.createId();
        RdmaException e = assertThrows(RdmaException.class,
                () -> refused.bind(new InetSocketAddress(any4, both.localPort())));
        assertEquals(EADDRNOTAVAIL, e.errno(), e.getMessage());
        assertNotEquals(0, both.localPort());
    }
}
