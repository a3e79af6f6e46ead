// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.Gid;
import dev.jrdma.NodeType;
import dev.jrdma.RdmaDevice;
import dev.jrdma.TransportType;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The text of devices/devinfo, checked against what ibv_devices/ibv_devinfo print (rdma-core 52). */
class DeviceCommandsTest {

    @Test
    void devicesLooksLikeIbvDevices() {
        String text = DeviceCommands.devicesText(List.of(
                new RdmaDevice("rxe0", 0xf8ae1ffffe80c9fdL, NodeType.CA, TransportType.IB),
                new RdmaDevice("rxe1", 0x803994fffe01f1f0L, NodeType.CA, TransportType.IB)));
        assertEquals("""
                    device          \t   node GUID
                    ------          \t----------------
                    rxe0            \tf8ae1ffffe80c9fd
                    rxe1            \t803994fffe01f1f0
                """, text);
    }

    @Test
    void guidIsFourGroups() {
        assertEquals("f8ae:1fff:fe80:c9fd", DeviceCommands.guid(0xf8ae1ffffe80c9fdL));
        assertEquals("0000:0000:0000:0001", DeviceCommands.guid(1));
    }

    @ParameterizedTest
    @CsvSource({
        "fe80000000000000189f9dfffeef55d7, fe80::189f:9dff:feef:55d7",
        "00000000000000000000ffff0ac80001, ::ffff:10.200.0.1",
        "00000000000000000000000000000000, ::",
        "00000000000000000000000000000001, ::1",
        "20010db8000000000001000000000001, 2001:db8::1:0:0:1",
        "20010db8000100010001000100010001, 2001:db8:1:1:1:1:1:1",
        "20010db8000000010000000000000000, 2001:db8:0:1::",
    })
    void gidsPrintLikeInetNtop(String hex, String expected) {
        assertEquals(expected, DeviceCommands.gidText(Gid.of(HexFormat.of().parseHex(hex))));
    }
}
