// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Regions registered with {@link Access#RELAXED_ORDERING} carry traffic (rdma-core's
 * tests/test_relaxed_ordering.py): libibverbs passes the optional flag to a kernel that knows
 * it and drops it otherwise, so the registration succeeds and the region works as any other.
 */
@DeviceTest
@EveryKernel
class RelaxedOrderingDeviceTest {
    private static final Set<Access> RELAXED = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
            Access.RELAXED_ORDERING);

    @Test
    @Exercises({"ibv_reg_mr", "ibv_post_send", "ibv_post_recv"})
    void rcWriteReadAndSendThroughRelaxedRegions() {
        try (Loopback lo = new Loopback()) {
            MemoryRegion local = lo.pd.allocate(4096, RELAXED);
            MemoryRegion remote = lo.pd.allocate(4096, RELAXED);
            assertTrue(local.access().contains(Access.RELAXED_ORDERING), "registered as asked: " + local.access());

            local.segment().asSlice(0, 256).fill((byte) 0x31);
            lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sge(local, 0, 256)
                    .remote(remote.remote(1024, 256)));
            lo.take().checkSuccess();
            assertEquals(0x31, remote.segment().get(JAVA_BYTE, 1024 + 255));

            remote.segment().set(JAVA_LONG, 2048, 0x0123456789ABCDEFL);
            lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.RDMA_READ).sge(local, 512, 8)
                    .remote(remote.remote(2048, 8)));
            lo.take().checkSuccess();
            assertEquals(0x0123456789ABCDEFL, local.segment().get(JAVA_LONG, 512));

            lo.b.post(new ReceiveRequest().wrId(3).sge(remote, 3072, 128));
            lo.a.post(new SendRequest().wrId(4).sge(local, 0, 100));
            for (int i = 0; i < 2; i++) {
                WorkCompletion wc = lo.take().checkSuccess();
                if (wc.wrId() == 3) {
                    assertEquals(100, wc.byteLength());
                }
            }
            assertEquals(0x31, remote.segment().get(JAVA_BYTE, 3072 + 99));
        }
    }

    @Test
    @Exercises({"ibv_reg_mr", "ibv_post_send", "ibv_post_recv"})
    void udSendFromAndReceiveIntoRelaxedRegions() {
        try (Loopback lo = new Loopback(QueuePairType.UD, Loopback.ALL, ConnectionOptions.DEFAULTS)) {
            MemoryRegion local = lo.pd.allocate(4096, RELAXED);
            MemoryRegion remote = lo.pd.allocate(4096, RELAXED);
            AddressHandle ah = lo.pd.createAddressHandle(lo.endpointB, TestDevices.PORT,
                    TestDevices.gid(lo.context).index());
            local.segment().asSlice(0, 200).fill((byte) 0x47);
            lo.b.post(new ReceiveRequest().wrId(1).sge(remote, 0, 40 + 256));
            lo.a.post(new SendRequest().wrId(2).sge(local, 0, 200).datagram(ah, lo.endpointB.qpn(),
                    ConnectionOptions.DEFAULTS.qkey()));
            boolean received = false;
            for (int i = 0; i < 2; i++) {
                WorkCompletion wc = lo.take().checkSuccess();
                if (wc.wrId() == 1) {
                    assertEquals(40 + 200, wc.byteLength());
                    received = true;
                }
            }
            assertTrue(received);
            assertEquals(0x47, remote.segment().get(JAVA_BYTE, 40 + 199));
            assertEquals(0, remote.segment().get(JAVA_BYTE, 40 + 200));
        }
    }
}
