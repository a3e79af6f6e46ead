// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.settings;
import static dev.jrdma.tools.CommandLines.usageError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.AddressSettings;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The addressing, QoS, multicast and port options: perftest's names, per-test availability and rules. */
class AddressOptionsTest {
    @Test
    void withoutOptionsTheDefaultsArePerftests() {
        assertEquals(AddressSettings.DEFAULT.tos(), settings("write-bw").addressing().tos());
        AddressSettings a = settings("send-lat").addressing();
        assertEquals(-1, a.tos());
        assertEquals(0, a.trafficClass());
        assertEquals(0, a.flowLabel(3));
        assertEquals(0, a.pkeyIndex());
        assertFalse(a.multicast() || a.dualPort() || a.dontExchangeVersions() || a.ipv6Gid() || a.ipv6Address());
        assertNull(a.forceLink());
    }

    @Test
    void qosOptions() {
        AddressSettings a = settings("write-bw", "--tclass", "40", "--flow_label",
                "0x10,7,0xFFFFF", "--pkey_index", "0", "-q", "4", "host").addressing();
        assertEquals(40, a.trafficClass());
        assertEquals(List.of(0x10, 7, 0xFFFFF), a.flowLabels());
        assertEquals(0x10, a.flowLabel(0));
        assertEquals(7, a.flowLabel(1));
        assertEquals(0x10, a.flowLabel(3), "round robin over the QPs");
        java.util.Map<String, Object> p = settings("write-bw", "--tclass", "40", "--flow_label", "1,2", "host")
                .toParameters();
        assertEquals(40, p.get("traffic_class"));
        assertEquals(List.of(1, 2), p.get("flow_labels"));
        assertFalse(settings("write-bw", "host").toParameters().containsKey("traffic_class"), "only what was given");
        assertEquals(5, settings("read-lat", "-R", "-T", "5").addressing().tos());
        assertEquals(-1, settings("read-lat", "-L", "64").addressing().tos(), "-L's default is accepted");
        usageError("'--tclass': must be between 0 and 255, got 256", "write-bw", "--tclass", "256");
        usageError("'--flow_label': must be between 0 and 1048575", "send-bw", "--flow_label", "1,0x100000");
        usageError("'--flow_label': 'x' is not a number", "send-bw", "--flow_label", "x");
        usageError("option '--tos' (-T): the type of service is an rdma_cm option: give -R", "write-lat", "-T", "8");
        usageError("'--tos' (-T): must be between 0 and 255", "write-lat", "-R", "--tos", "300");
        usageError("option '--hop_limit' (-L): the hop limit is a raw Ethernet option", "send-lat", "-L", "3");
        usageError("'--pkey_index': must be between 0 and 65535", "send-lat", "--pkey_index", "-1");
    }

    @Test
    void connectionOptions() {
        AddressSettings a = settings("send-lat", "--ipv6", "--ipv6-addr", "--bind_source_ip", "fe80::1",
                "--dont_xchg_versions", "--force-link", "ethernet", "host").addressing();
        assertTrue(a.ipv6Gid() && a.ipv6Address() && a.dontExchangeVersions());
        assertEquals("fe80::1", a.bindSourceIp());
        assertEquals(AddressSettings.Link.ETHERNET, a.forceLink());
        assertEquals(AddressSettings.Link.IB, settings("send-lat", "--force-link", "IB").addressing().forceLink());
        assertTrue(settings("send-lat", "-R", "-z").addressing().commRdmaCm());
        usageError("option '--force-link': must be IB or Ethernet, got 'RoCE'", "send-lat", "--force-link", "RoCE");
        usageError("option '--bind_source_ip': fe80::1 is an IPv6 address: give --ipv6-addr too", "send-lat",
                "--bind_source_ip", "fe80::1");
        usageError("option '--bind_source_ip': 'a-host' is not an IP address", "send-lat", "--bind_source_ip",
                "a-host");
        assertEquals("127.0.0.1", settings("read-bw", "--source_ip", "127.0.0.1", "host").addressing().bindSourceIp(),
                "perftest 6.06's name for --bind_source_ip");
        usageError("option '--bind_source_ip': 'a-host' is not an IP address", "atomic-lat", "--source_ip", "a-host");
        // -z alone: the exchange over rdma_cm, the test QPs connected by verbs (CONNECT), no "done".
        PerftestSettings z = settings("send-lat", "-z", "host");
        assertTrue(z.addressing().commRdmaCm() && !z.rdmaCm());
        dev.jrdma.tools.perftest.PerftestSchedule.Options zo = dev.jrdma.tools.perftest.PerftestSchedule.Options.of(z);
        assertTrue(zo.exchangeOverRdmaCm() && !zo.rdmaCm());
        List<dev.jrdma.tools.perftest.PerftestSchedule.Step> steps = dev.jrdma.tools.perftest.PerftestSchedule.of(
                z.kind(), true, 1, zo);
        assertTrue(steps.contains(dev.jrdma.tools.perftest.PerftestSchedule.Step.CONNECT), steps.toString());
        assertEquals(List.of(dev.jrdma.tools.perftest.PerftestSchedule.Step.SYNC,
                dev.jrdma.tools.perftest.PerftestSchedule.Step.CLOSE), steps.subList(steps.size() - 2, steps.size()));
    }

    @Test
    void multicastIsOfferedOnTheSendTestsAndMakesThemUd() {
        PerftestSettings s = settings("send-bw", "-g", "host");
        assertTrue(s.addressing().multicast());
        assertEquals(TestKind.Connection.UD, s.connection(), "perftest: -g makes the test UD");
        byte[] dflt = {(byte) 255, 1, 0, 0, 0, 2, (byte) 201, (byte) 133, 0, 0, 0, 0, 0, 0, 0, 0};
        assertArrayEquals(dflt, s.addressing().group(false));
        dflt[15] = 1;
        assertArrayEquals(dflt, s.addressing().group(true), "the client's default group is the next one");
        byte[] given = {(byte) 255, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3};
        assertArrayEquals(given, settings("send-lat", "-g", "-M", "255:14:0:0:0:0:0:0:0:0:0:0:0:1:2:0x3")
                .addressing().group(true), "perftest's form: 16 byte values");
        assertArrayEquals(given, settings("send-lat", "-g", "-M", "ff0e::1:203").addressing().group(false));
        byte[] v4 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 255, (byte) 255, (byte) 239, 1, 2, 3};
        assertArrayEquals(v4, settings("send-bw", "-g", "-M", "239.1.2.3").addressing().group(false));
        assertArrayEquals(v4, settings("send-bw", "-g", "-M", "0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3").addressing()
                .group(false));
        usageError("is no multicast GID", "send-lat", "-g", "-M", "10.1.2.3");
        usageError("Unknown option: '-g'", "write-bw", "-g");
        usageError("Unknown option: '--connectionless'", "send-lat", "--connectionless");
        usageError("option '--MGID' (-M): names the group of -g (--mcg): give -g too", "send-lat", "-M", "ff0e::1");
        usageError("is no multicast GID", "send-lat", "-g", "-M", "fe80::1");
        usageError("options '--mcg' (-g) and '--bidirectional' (-b) exclude each other", "send-bw", "-g", "-b");
        usageError("option '--mcg' (-g): one QP only", "send-bw", "-g", "-q", "2");
        usageError("options '--mcg' (-g) and '--rdma_cm' (-R) exclude each other", "send-lat", "-g", "-R");
        usageError("option '--connectionless': only for a multicast UD BW server that runs infinitely", "send-bw",
                "-g", "--connectionless");
    }

    @Test
    void dualPortIsOfferedOnTheBandwidthTests() {
        assertTrue(settings("atomic-bw", "-O").addressing().dualPort());
        assertTrue(settings("write-bw", "--dualport").addressing().dualPort());
        usageError("Unknown option: '-O'", "send-lat", "-O");
        usageError("options '--dualport' (-O) and '--rdma_cm' (-R) exclude each other", "read-bw", "-O", "-R");
        usageError("options '--dualport' (-O) and '--mcg' (-g) exclude each other", "send-bw", "-O", "-g");
    }
}
