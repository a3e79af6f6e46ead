// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import dev.jrdma.testing.IpCommand;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The device and port queries past the basic ones, on the test device (and, for L2, its VM peer). */
@DeviceTest
@EveryKernel
class DeviceQueryDeviceTest extends DeviceFixture {
    @Test
    @Exercises({"ibv_query_gid_table", "ibv_query_gid_ex", "ibv_query_gid"})
    void theGidTableInOneCallMatchesTheEntriesOneByOne() {
        List<GidEntry> table = context.gidTable();
        assertFalse(table.isEmpty(), "rxe has at least the link-local and the IPv4 GIDs");
        int length = context.queryPort(TestDevices.PORT).gidTableLength();
        List<GidEntry> oneByOne = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            context.gid(TestDevices.PORT, i).ifPresent(oneByOne::add);
        }
        assertEquals(oneByOne, table);
        assertEquals(table, context.gidTable(TestDevices.PORT));
        for (GidEntry e : table) {
            assertEquals(e.gid(), context.rawGid(e.port(), e.index()), "ibv_query_gid reads the same GID");
        }
        int unused = 0;
        while (unused < length && context.gid(TestDevices.PORT, unused).isPresent()) {
            unused++;
        }
        assertTrue(unused < length, "rxe's table has free entries");
        assertEquals(Gid.ZERO, context.rawGid(TestDevices.PORT, unused), "an unused entry reads as zero");
    }

    /**
     * The classic query reports what the extended one embeds, and nothing of what only the
     * extended one fills: rxe answers the extended query with a non-zero extended capability
     * word, which the classic query leaves zero (so a classic query made through the extended
     * one would show).
     */
    @Test
    @Exercises({"ibv_query_device", "ibv_query_device_ex"})
    void theClassicQueryReportsTheClassicPartOfTheExtendedOne() {
        DeviceAttributes ex = context.queryDevice();
        DeviceAttributes classic = context.queryDeviceLegacy();
        assertNotEquals(0, ex.deviceCapabilityFlagsEx(), "rxe's extended capability word");
        assertEquals(0, classic.deviceCapabilityFlagsEx());
        assertEquals(0, classic.completionTimestampMask());
        assertEquals(0, classic.maxTsoBytes());
        assertEquals(new DeviceAttributes(ex.firmwareVersion(), ex.nodeGuid(), ex.systemImageGuid(), ex.maxMrSize(),
                ex.pageSizeCap(), ex.vendorId(), ex.vendorPartId(), ex.hardwareVersion(), ex.maxQp(), ex.maxQpWr(),
                ex.maxSge(), ex.maxCq(), ex.maxCqe(), ex.maxMr(), ex.maxPd(), ex.maxQpRdAtom(), ex.maxQpInitRdAtom(),
                ex.maxSrq(), ex.maxAh(), ex.maxMw(), ex.atomicCapability(), ex.physicalPortCount(),
                ex.deviceCapabilityFlags(), 0, 0, 0, 0, 0, 0, 0, 0, classic.tagMatching(), classic.rss(),
                classic.packetPacing(), 0), classic);
        context.close();
        assertThrows(IllegalStateException.class, context::queryDeviceLegacy);
    }

    @Test
    @Exercises({"ibv_query_pkey", "ibv_get_pkey_index"})
    void theDefaultPartitionIsAtIndexZero() {
        assertEquals(0xffff, context.pkey(TestDevices.PORT, 0));
        assertEquals(OptionalInt.of(0), context.pkeyIndex(TestDevices.PORT, 0xffff));
        assertEquals(OptionalInt.empty(), context.pkeyIndex(TestDevices.PORT, 0x1234), "not a member of 0x1234");
        RdmaException past = assertThrows(RdmaException.class, () -> context.pkey(TestDevices.PORT, 4096));
        assertEquals(Verb.IBV_QUERY_PKEY, past.verb());
    }

    @Test
    @Exercises({"ibv_get_device_index", "ibv_get_device_guid"})
    void theDeviceIndexIsTheKernelsAsRdmaToolShowsIt() throws IOException, InterruptedException {
        RdmaDevice device = context.device();
        int index = device.index().orElseThrow(() -> new AssertionError("kernel 6.1 reports device indices"));
        // `rdma dev show rxe0` prints "<index>: rxe0: node_type ..."
        Process rdma = new ProcessBuilder("rdma", "dev", "show", device.name()).redirectErrorStream(true).start();
        String out = new String(rdma.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(rdma.waitFor(10, TimeUnit.SECONDS));
        assertTrue(out.startsWith(index + ": " + device.name() + ":"), out);
        String guid = Files.readString(Path.of("/sys/class/infiniband", device.name(), "node_guid")).trim();
        assertEquals(guid.replace(":", ""), device.nodeGuidText());
    }

    @Test
    @Exercises(value = {"ibv_query_rt_values_ex"}, refused = "rxe has no device clock: librxe 44 leaves"
            + " query_rt_values to libibverbs' dummy op, which answers EOPNOTSUPP")
    void rxeHasNoClockToRead() {
        assertEquals(0, context.queryDevice().hcaCoreClock(), "the device says so first: no core clock");
        OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class, context::rawClockNanos);
        assertEquals(Verb.IBV_QUERY_RT_VALUES_EX, e.verb());
        assertTrue(e.getMessage().contains(context.name()) && e.getMessage().contains("raw clock"), e.getMessage());
    }

    @Test
    @Exercises({"ibv_query_qp_data_in_order"})
    void rxeGivesNoInOrderGuarantee() {
        QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(context.createCompletionQueue(4)).build();
        // librxe 44 has no query_qp_data_in_order op: libibverbs' default answers 0 (no guarantee),
        // so a reader must wait for the completion rather than poll the buffer's last byte.
        for (SendOpcode op : new SendOpcode[] {SendOpcode.RDMA_WRITE, SendOpcode.SEND, SendOpcode.RDMA_READ}) {
            assertFalse(qp.isDataInOrder(op), op.toString());
        }
        qp.close();
        assertThrows(IllegalStateException.class, () -> qp.isDataInOrder(SendOpcode.SEND));
    }

    @Test
    @Exercises({"ibv_is_qpt_supported", "ibv_query_device_ex"})
    void rxeOffersNoPerTypeOffloads() {
        for (QueuePairOffload offload : QueuePairOffload.values()) {
            for (QueuePairType type : QueuePairType.values()) {
                assertFalse(context.supportsOffload(offload, type), offload + " on " + type);
            }
        }
    }

    @Test
    @Exercises({"ibv_resolve_eth_l2_from_gid"})
    void theNextHopOfAGidIsItsNeighboursMac() throws Exception {
        Assumptions.assumeTrue(System.getenv("JRDMA_IN_SOFTROCE_VM") != null,
                "adds a neighbour entry to the netdev under the test device, so it runs only in the Soft-RoCE VM");
        GidEntry source = TestDevices.gid(context);
        String dev = netdev(source.ifindex()).getFileName().toString();
        // A neighbour of the device's subnet that the kernel knows without asking (the VM's one
        // wire ends in its own second device, whose address is local, so ARP never leaves the host).
        byte[] own = source.ipv4().orElseThrow().getAddress();
        String neighbour = (own[0] & 0xff) + "." + (own[1] & 0xff) + "." + (own[2] & 0xff) + ".99";
        String mac = "02:00:5e:00:00:99";
        IpCommand.run("neigh", "replace", neighbour, "lladdr", mac, "dev", dev, "nud", "permanent");
        try {
            EthernetL2Address l2 = context.resolveEthernetAddress(source,
                    Gid.ofIpv4((java.net.Inet4Address) java.net.InetAddress.getByName(neighbour)));
            assertEquals(mac, l2.mac());
            assertEquals(OptionalInt.empty(), l2.vlan());
        } finally {
            IpCommand.run("neigh", "del", neighbour, "dev", dev);
        }
        // The VM's other device sits on this host (the far end of the veth pair): no neighbour
        // answers for an address of the host itself through the wire (measured: EHOSTUNREACH).
        RdmaDevice peer = Rdma.devices().stream().filter(d -> !d.name().equals(context.name())).findFirst()
                .orElseThrow(() -> new AssertionError("the Soft-RoCE VM has two rxe devices"));
        Gid hostAddress;
        try (Context other = peer.open()) {
            hostAddress = other.defaultGid().gid();
        }
        RdmaException local = assertThrows(RdmaException.class,
                () -> context.resolveEthernetAddress(source, hostAddress));
        assertEquals(Verb.IBV_RESOLVE_ETH_L2_FROM_GID, local.verb());
        assertEquals(113, local.errno(), "EHOSTUNREACH");
    }

    private static Path netdev(int ifindex) throws IOException {
        try (Stream<Path> all = Files.list(Path.of("/sys/class/net"))) {
            return all.filter(p -> {
                try {
                    return Files.readString(p.resolve("ifindex")).trim().equals(Integer.toString(ifindex));
                } catch (IOException e) {
                    return false;
                }
            }).findFirst().orElseThrow(() -> new AssertionError("no netdev with ifindex " + ifindex));
        }
    }
}
