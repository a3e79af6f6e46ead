// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

@DeviceTest
@EveryKernel
class DiscoveryDeviceTest {
    private final RdmaDevice device = TestDevices.device();

    @Test
    @Exercises({"ibv_get_device_list", "ibv_free_device_list", "ibv_get_device_name", "ibv_get_device_guid"})
    void listsTheDevices() {
        List<RdmaDevice> devices = Rdma.devices();
        assertTrue(devices.contains(device));
        if (System.getenv("JRDMA_IN_SOFTROCE_VM") != null) {
            assertEquals(List.of("rxe0", "rxe1"), devices.stream().map(RdmaDevice::name).sorted().toList());
            for (RdmaDevice d : devices) {
                assertEquals(NodeType.CA, d.nodeType(), d.name());
                assertEquals(TransportType.IB, d.transportType(), "RoCE reports the IB transport");
                assertNotEquals(0, d.nodeGuid());
                assertEquals(16, d.nodeGuidText().length());
            }
        }
        assertEquals(device, Rdma.device(device.name()).orElseThrow());
        assertTrue(Rdma.device("no-such-device").isEmpty());
    }

    @Test
    @Exercises({"ibv_open_device", "ibv_query_device_ex", "ibv_close_device"})
    void queriesDeviceAttributes() {
        try (Context context = device.open()) {
            assertEquals(device, context.device());
            DeviceAttributes attributes = context.queryDevice();
            assertEquals(device.nodeGuid(), attributes.nodeGuid(), "the list and the query agree on the GUID");
            assertTrue(attributes.physicalPortCount() >= 1);
            assertTrue(attributes.maxQp() > 0 && attributes.maxCqe() > 0 && attributes.maxMr() > 0);
            assertTrue(attributes.maxPd() > 0 && attributes.maxSge() > 0 && attributes.maxQpWr() > 0);
            assertNotEquals(0, attributes.maxMrSize(), "unsigned: rxe reports 2^64-1, i.e. -1");
            if (device.name().startsWith("rxe")) {
                // rxe implements atomics in software (atomic within the device only) and has no device clock.
                assertEquals(AtomicCapability.HCA, attributes.atomicCapability());
                assertEquals(0, attributes.hcaCoreClock());
            }
        }
    }

    @Test
    @Exercises("ibv_query_port")
    void queriesThePort() {
        try (Context context = device.open()) {
            PortAttributes port = context.queryPort(TestDevices.PORT);
            assertEquals(PortState.ACTIVE, port.state());
            assertEquals(TestDevices.PORT, port.port());
            assertTrue(port.gidTableLength() > 0);
            assertTrue(port.activeMtu().compareTo(port.maxMtu()) <= 0);
            if (device.name().startsWith("rxe")) {
                assertEquals(LinkLayer.ETHERNET, port.linkLayer());
                assertTrue(port.isEthernet());
                assertEquals(0, port.lid(), "RoCE has no LIDs");
                // The VM's veth MTU is 1500: the RoCE MTU is the largest IB MTU below it.
                assertEquals(Mtu.MTU_1024, port.activeMtu());
                assertEquals(Mtu.MTU_4096, port.maxMtu());
            }
            assertTrue(port.lanes() > 0, "width code " + port.activeWidth());
            assertTrue(port.laneGbps() > 0, "speed code " + port.activeSpeed());
        }
    }

    @Test
    @Exercises("ibv_query_gid_ex")
    void gidTableHoldsTheNetdevAddress() throws Exception {
        try (Context context = device.open()) {
            List<GidEntry> table = context.gidTable(TestDevices.PORT);
            assertFalse(table.isEmpty());
            boolean found = false;
            for (GidEntry entry : table) {
                assertEquals(TestDevices.PORT, entry.port());
                assertEquals(entry, context.gid(TestDevices.PORT, entry.index()).orElseThrow());
                if (entry.type() != GidType.ROCE_V2 || entry.ipv4().isEmpty()) {
                    continue;
                }
                NetworkInterface netdev = NetworkInterface.getByIndex(entry.ifindex());
                assertTrue(netdev != null, "no netdev with ifindex " + entry.ifindex());
                List<InetAddress> addresses = Collections.list(netdev.getInetAddresses());
                assertTrue(addresses.contains(entry.ipv4().get()), entry + " vs " + addresses);
                found = true;
            }
            assertTrue(found, "no RoCE v2 IPv4 GID in " + table);
            int unused = table.getLast().index() + 1;
            if (unused < context.queryPort(TestDevices.PORT).gidTableLength()) {
                assertTrue(context.gid(TestDevices.PORT, unused).isEmpty());
            }
        }
    }
}
