// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link QueuePair#query()}: after each transition the device reports back what it was given,
 * for RC, UC and UD, with values away from the defaults so that a field read from the wrong
 * place (or not at all) shows. rdma-core's tests/test_qp.py checks the same read-back.
 */
@DeviceTest
@EveryKernel
class QueuePairAttributesDeviceTest extends DeviceFixture {
    /**
     * Powers of two for the READ depths: rxe rounds them up to one. SL 5: rxe keeps no SL in its
     * address vector (RoCE carries it only as a VLAN priority) and reports 0.
     */
    private static final ConnectionOptions OPTIONS = new ConnectionOptions(
            EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ), 9, 17, 5, 6, 4, 8, 0x2468ACE, 33, 5, 0x20, 0, 0);

    @ParameterizedTest
    @EnumSource(value = QueuePairType.class, names = {"RC", "UC", "UD"})
    @Exercises({"ibv_query_qp", "ibv_modify_qp"})
    void eachTransitionReadsBackWhatItGave(QueuePairType type) {
        CompletionQueue cq = context.createCompletionQueue(16);
        QueuePair a = pd.queuePair(type).completionQueue(cq).maxSges(2, 3).maxInlineData(64).build();
        QueuePair b = pd.queuePair(type).completionQueue(cq).build();
        int gidIndex = TestDevices.gid(context).index();
        Endpoint local = a.localEndpoint();
        Endpoint remote = b.localEndpoint();

        QueuePairAttributes reset = a.query();
        assertEquals(QueuePairState.RESET, reset.state());
        assertGranted(a.capabilities(), reset.capabilities());
        assertTrue(reset.capabilities().maxReceiveSges() >= 3 && reset.capabilities().maxSendSges() >= 2);
        // Before RTR the path MTU is the provider's: rxe starts every queue pair at 256 (6.1 and 6.12).
        if (context.name().startsWith("rxe")) {
            assertEquals(Optional.of(Mtu.MTU_256), reset.pathMtu());
        }

        a.toInit(OPTIONS);
        QueuePairAttributes init = a.query();
        assertEquals(QueuePairState.INIT, init.state());
        assertEquals(TestDevices.PORT, init.port());
        assertEquals(0, init.pkeyIndex());
        switch (type) {
            case RC -> assertEquals(Set.of(Access.REMOTE_WRITE, Access.REMOTE_READ), init.remoteAccess());
            case UC -> assertEquals(Set.of(Access.REMOTE_WRITE), init.remoteAccess(), "UC has no READ");
            default -> assertEquals(0x2468ACE, init.qkey());
        }

        if (type == QueuePairType.UD) {
            a.toRtr();
        } else {
            a.toRtr(remote, OPTIONS);
        }
        QueuePairAttributes rtr = a.query();
        assertEquals(QueuePairState.RTR, rtr.state());
        if (type == QueuePairType.UD) {
            assertEquals(0x2468ACE, rtr.qkey(), "kept from INIT");
        } else {
            assertEquals(Optional.of(local.mtu().min(remote.mtu())), rtr.pathMtu());
            assertEquals(b.qpNumber(), rtr.destQpNumber());
            assertEquals(remote.psn(), rtr.receivePsn());
            AddressVector path = rtr.path();
            assertTrue(path.global(), "RoCE routes by the GRH");
            assertEquals(remote.gid(), path.gid());
            assertEquals(gidIndex, path.sourceGidIndex());
            // On RoCE the kernel resolves the route at RTR and puts the route's hop limit in
            // the GRH (net.ipv4.ip_default_ttl, 64), whatever the options asked; 33 elsewhere.
            boolean roce = context.queryPort(TestDevices.PORT).linkLayer() == LinkLayer.ETHERNET;
            assertEquals(roce ? 64 : 33, path.hopLimit());
            assertEquals(0x20, path.trafficClass());
            assertEquals(TestDevices.PORT, path.port());
            assertEquals(context.name().startsWith("rxe") ? 0 : 5, path.serviceLevel());
            if (type == QueuePairType.RC) {
                assertEquals(9, rtr.minRnrTimer());
                assertEquals(8, rtr.maxDestReadAtomic());
            }
        }

        a.toRts(OPTIONS);
        QueuePairAttributes rts = a.query();
        assertEquals(QueuePairState.RTS, rts.state());
        assertEquals(local.psn(), rts.sendPsn());
        if (type == QueuePairType.RC) {
            assertEquals(17, rts.timeout());
            assertEquals(5, rts.retryCount());
            assertEquals(6, rts.rnrRetry());
            assertEquals(4, rts.maxReadAtomic());
            assertEquals(remote.psn(), rts.receivePsn(), "kept from RTR");
            assertEquals(9, rts.minRnrTimer(), "kept from RTR");
        }
        assertEquals(reset.capabilities(), rts.capabilities(), "the caps do not change with the state");

        a.toError();
        assertEquals(QueuePairState.ERR, a.query().state());
        a.close();
        assertThrows(IllegalStateException.class, a::query);
    }

    /**
     * The read-back holds at least what the create granted: rxe's create reports the depths asked
     * for (16); the query on 6.1 reports its queues' real size (31, a power of two less one
     * slot), on 6.12 the depths asked for. SGEs and inline data read back as granted.
     */
    private static void assertGranted(QueuePairCapabilities created, QueuePairCapabilities read) {
        assertTrue(read.maxSendWorkRequests() >= created.maxSendWorkRequests(), read + " against " + created);
        assertTrue(read.maxReceiveWorkRequests() >= created.maxReceiveWorkRequests(), read + " against " + created);
        assertEquals(created.maxSendSges(), read.maxSendSges());
        assertEquals(created.maxReceiveSges(), read.maxReceiveSges());
        assertEquals(created.maxInlineData(), read.maxInlineData());
    }
}
