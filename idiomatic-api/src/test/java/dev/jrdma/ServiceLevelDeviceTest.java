// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.testing.DeviceTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * {@link ConnectionOptions#serviceLevel()}, {@link ConnectionOptions#trafficClass()},
 * {@link ConnectionOptions#flowLabel()} and {@link ConnectionOptions#pkeyIndex()} reach the device.
 */
@DeviceTest
class ServiceLevelDeviceTest {
    private static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULTS.withServiceLevel(5).withTrafficClass(0x28);

    /**
     * The address vector as the device reports it back. Soft-RoCE keeps the GRH but not the SL
     * (its rxe_av has no SL field; RoCE carries the SL only as a VLAN priority), so the SL is
     * checked only where the provider reports one back.
     */
    @Test
    void aConnectedQueuePairsAddressVectorCarriesTheTrafficClass() throws Exception {
        try (Loopback lo = new Loopback(QueuePairType.RC, Loopback.ALL, OPTIONS)) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = queryQp(lo.a, QpAttribute.AV.bit, arena);
                MemorySegment ah = ibv_qp_attr.ah_attr(attr);
                assertEquals(0x28, Byte.toUnsignedInt(ibv_global_route.traffic_class(ibv_ah_attr.grh(ah))));
                if (!lo.context.name().startsWith("rxe")) {
                    assertEquals(5, ibv_ah_attr.sl(ah));
                }
            }
            assertCarriesTraffic(lo, (byte) 9);
        }
    }

    /**
     * On RoCE v2 over IPv4 a UD receive's 40-byte GRH area holds the IPv4 header in its last 20
     * bytes: its TOS byte is the traffic class the sender's address handle set.
     */
    @Test
    void aUdDatagramLeavesWithTheAddressHandlesTrafficClass() {
        try (Loopback lo = new Loopback(QueuePairType.UD, Loopback.ALL, OPTIONS)) {
            GidEntry gid = TestDevices.gid(lo.context);
            assertTrue(gid.ipv4().isPresent(), "needs an IPv4-mapped RoCE v2 GID: " + gid);
            Endpoint eb = lo.endpointB;
            MemoryRegion mr = lo.memA;
            lo.b.post(new ReceiveRequest().wrId(1).sge(mr, 1024, 40 + 256));
            AddressHandle ah = lo.pd.createAddressHandle(eb, TestDevices.PORT, gid.index(), OPTIONS);
            lo.a.post(new SendRequest().wrId(2).sge(mr, 0, 16).datagram(ah, eb.qpn(), OPTIONS.qkey()));
            WorkCompletion wc = new WorkCompletion();
            boolean received = false;
            for (int i = 0; i < 2; i++) {
                lo.cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
                received |= wc.wrId() == 1;
            }
            assertTrue(received);
            MemorySegment ipv4 = mr.segment().asSlice(1024 + 20, 20);
            assertEquals(0x45, Byte.toUnsignedInt(ipv4.get(JAVA_BYTE, 0)), "IPv4 header with 20 bytes");
            assertEquals(0x28, Byte.toUnsignedInt(ipv4.get(JAVA_BYTE, 1)), "TOS = traffic class");
            ah.close();
        }
    }

    /** The flow label and the P_Key index as the device reports them back, and traffic still flows. */
    @Test
    void aConnectedQueuePairCarriesTheFlowLabelAndPkeyIndex() throws Exception {
        ConnectionOptions options = OPTIONS.withFlowLabel(0xABCDE).withPkeyIndex(0);
        assertThrows(IllegalArgumentException.class, () -> OPTIONS.withFlowLabel(0x100000));
        try (Loopback lo = new Loopback(QueuePairType.RC, Loopback.ALL, options)) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment attr = queryQp(lo.a, QpAttribute.AV.bit | QpAttribute.PKEY_INDEX.bit, arena);
                MemorySegment grh = ibv_ah_attr.grh(ibv_qp_attr.ah_attr(attr));
                assertEquals(0xABCDE, ibv_global_route.flow_label(grh));
                assertEquals(0x28, Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)));
                assertEquals(0, ibv_qp_attr.pkey_index(attr));
            }
            assertCarriesTraffic(lo, (byte) 7);
        }
    }

    /** {@code struct ibv_qp_attr} of {@code qp} as the device reports the {@code mask} fields back. */
    private static MemorySegment queryQp(QueuePair qp, int mask, Arena arena) {
        MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
        MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
        assertEquals(0, rdma_h.ibv_query_qp(qp.handle(), attr, mask, init));
        return attr;
    }

    /** The connection still carries traffic: an RDMA WRITE of 64 bytes of {@code fill} from A lands in B. */
    private static void assertCarriesTraffic(Loopback lo, byte fill) {
        lo.memA.segment().fill(fill);
        lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 64)
                .remote(lo.memB.remote(0, 64)));
        lo.take().checkSuccess();
        assertEquals(fill, lo.memB.segment().get(JAVA_BYTE, 63));
    }
}
