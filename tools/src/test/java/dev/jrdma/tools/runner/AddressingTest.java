// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.ConnectionOptions;
import dev.jrdma.MulticastGroup;
import dev.jrdma.tools.perftest.AddressSettings;
import dev.jrdma.tools.perftest.MemorySettings;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.PostSettings;
import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.ReportSettings;
import dev.jrdma.tools.perftest.RunSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the addressing options change in the QPs' options and the UD sends' destinations. */
class AddressingTest {
    private static final byte[] UNICAST = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 255, (byte) 255, 10, (byte) 200, 0, 1};

    private static PerftestSettings settings(TestKind kind, boolean client, AddressSettings a) {
        return new PerftestSettings(kind, client ? "host" : null, null, 1, -1, 18515, 0, TestKind.Connection.UD, false,
                14, 7, 0, List.of(2L), false, 1000, 0, 128, 512, -1, 1, 1, false, false, false, false, -1, null, null,
                false, false, null, null, Duration.ofSeconds(5), 0, List.of(), ReportSettings.DEFAULT, RunSettings.DEFAULT,
                PostSettings.DEFAULT, a, RateSettings.DEFAULT, MemorySettings.DEFAULT, OperationSettings.DEFAULT, -1, 0);
    }

    private static AddressSettings address(int tclass, List<Integer> labels, int pkey, boolean multicast, byte[] mgid) {
        return new AddressSettings(-1, tclass, labels, pkey, false, false, null, false, false, null, multicast, mgid,
                false, false);
    }

    private static PeerInfo peer(int qpn, byte[] gid) {
        return new PeerInfo(0, 1, qpn, 7, 0, 0, gid, 0);
    }

    @Test
    void theQosOptionsGoIntoEveryQueuePairsConnectionOptions() {
        PerftestSettings s = settings(TestKind.WRITE_BW, true, address(40, List.of(5, 6), 0, false, null));
        ConnectionOptions q0 = Addressing.options(s, 0, ConnectionOptions.DEFAULTS);
        ConnectionOptions q1 = Addressing.options(s, 1, ConnectionOptions.DEFAULTS);
        ConnectionOptions q2 = Addressing.options(s, 2, ConnectionOptions.DEFAULTS);
        assertEquals(40, q0.trafficClass());
        assertEquals(5, q0.flowLabel());
        assertEquals(6, q1.flowLabel());
        assertEquals(5, q2.flowLabel(), "round robin");
        assertEquals(0, q0.pkeyIndex());
        ConnectionOptions none = Addressing.options(settings(TestKind.WRITE_BW, true, AddressSettings.DEFAULT), 0,
                ConnectionOptions.DEFAULTS);
        assertEquals(ConnectionOptions.DEFAULTS, none, "nothing changes without the options");
    }

    @Test
    void aMulticastSenderNamesTheMulticastQpnUnlessItsOwnQueuePairIsInTheGroup() {
        PerftestSettings bwClient = settings(TestKind.SEND_BW, true, address(0, List.of(), 0, true, null));
        byte[] serverGroup = AddressSettings.DEFAULT.group(false);
        assertEquals(MulticastGroup.QPN, Addressing.remoteQpn(bwClient, peer(0x11, serverGroup)));
        assertEquals(0x11, Addressing.remoteQpn(bwClient, peer(0x11, UNICAST)), "a unicast peer: its QPN");
        assertFalse(Addressing.receivesMulticast(bwClient), "the send-bw client only sends");
        assertTrue(Addressing.receivesMulticast(settings(TestKind.SEND_BW, false, bwClient.addressing())));

        // send-lat: both sides receive; with the default groups each sends to the other's group.
        PerftestSettings latClient = settings(TestKind.SEND_LAT, true, address(0, List.of(), 0, true, null));
        assertTrue(Addressing.receivesMulticast(latClient));
        assertEquals(MulticastGroup.QPN, Addressing.remoteQpn(latClient, peer(0x12, serverGroup)));
        // One -M for both: the peer's QPN, or the sender's own QP would receive its datagrams.
        byte[] shared = {(byte) 255, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1};
        PerftestSettings sameGroup = settings(TestKind.SEND_LAT, true, address(0, List.of(), 0, true, shared));
        assertEquals(0x12, Addressing.remoteQpn(sameGroup, peer(0x12, shared)));
        // Without -g a multicast-looking GID changes nothing.
        assertEquals(0x12, Addressing.remoteQpn(settings(TestKind.SEND_BW, true, AddressSettings.DEFAULT),
                peer(0x12, serverGroup)));
    }

    @Test
    void multicastGidsOfBothKinds() {
        assertTrue(AddressSettings.isMulticastGid(AddressSettings.DEFAULT.group(true)));
        assertTrue(AddressSettings.isMulticastGid(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 255, (byte) 255,
                (byte) 239, 1, 2, 3}));
        assertFalse(AddressSettings.isMulticastGid(UNICAST));
        assertFalse(AddressSettings.isMulticastGid(null));
    }
}
