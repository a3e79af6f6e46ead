// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GidTest {
    @Test
    void ipv4MappedGid() throws Exception {
        byte[] bytes = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");
        Gid gid = Gid.of(bytes);
        assertTrue(gid.isIpv4Mapped());
        assertEquals(Optional.of(InetAddress.getByName("10.200.0.1")), gid.ipv4());
        assertEquals("0000:0000:0000:0000:0000:ffff:0ac8:0001", gid.toString());
        assertArrayEquals(bytes, gid.bytes());
        assertEquals(gid, Gid.ofIpv4((Inet4Address) InetAddress.getByName("10.200.0.1")));
    }

    @Test
    void linkLocalGidIsNotIpv4() {
        Gid gid = Gid.of(HexFormat.of().parseHex("fe800000000000000250b6fffe1a2b3c"));
        assertFalse(gid.isIpv4Mapped());
        assertEquals(Optional.empty(), gid.ipv4());
        assertEquals(0xfe80000000000000L, gid.high());
        assertEquals("fe80:0000:0000:0000:0250:b6ff:fe1a:2b3c", gid.toString());
    }

    @Test
    void wrongLength() {
        assertThrows(IllegalArgumentException.class, () -> Gid.of(new byte[15]));
    }

    @Test
    void gidEntryIpv4() {
        Gid gid = Gid.of(HexFormat.of().parseHex("00000000000000000000ffffc0a80102"));
        GidEntry e = new GidEntry(1, 1, gid, GidType.ROCE_V2, 3);
        assertEquals("192.168.1.2", e.ipv4().orElseThrow().getHostAddress());
    }

    @Test
    void endpointChecks24BitFields() {
        assertThrows(IllegalArgumentException.class, () -> new Endpoint(1 << 24, 0, 0, Gid.ZERO, Mtu.MTU_1024));
        assertThrows(IllegalArgumentException.class, () -> new Endpoint(1, -1, 0, Gid.ZERO, Mtu.MTU_1024));
        new Endpoint(0xffffff, 0xffffff, 0xffff, Gid.ZERO, Mtu.MTU_4096);
    }

    @Test
    void endpointsRoundTripThroughBytes() {
        Endpoint e = new Endpoint(0xabcdef, 0x123456, 0xfffe,
                Gid.of(HexFormat.of().parseHex("00000000000000000000ffff0ac80001")), Mtu.MTU_1024);
        byte[] bytes = e.toBytes();
        assertEquals(Endpoint.BYTES, bytes.length);
        assertEquals("0103fffe00abcdef0012345600000000000000000000ffff0ac80001", HexFormat.of().formatHex(bytes));
        assertEquals(e, Endpoint.fromBytes(bytes));
        bytes[0] = 9;
        assertThrows(IllegalArgumentException.class, () -> Endpoint.fromBytes(bytes));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.fromBytes(new byte[3]));
    }

    @Test
    void remoteMemorySlices() {
        RemoteMemory m = new RemoteMemory(0x1000, 4096, 0x42);
        assertEquals(new RemoteMemory(0x1010, 8, 0x42), m.slice(16, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> m.slice(4090, 8));
        assertEquals("0x1000+4096 rkey 0x42", m.toString());
    }

    @Test
    void portAttributesDecodeSpeedAndWidth() {
        PortAttributes p = new PortAttributes(1, PortState.ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 0, 0, 16,
                LinkLayer.ETHERNET, 32, 2, 1L << 31, 5);
        assertEquals(4, p.lanes());
        assertEquals(25.0, p.laneGbps());
        assertTrue(p.isEthernet());
    }
}
