// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import org.junit.jupiter.api.Test;

/**
 * The edges of sizes, as rdma-core's tests check them on rxe: zero-length RDMA READ and WRITE
 * and a zero-size UD SEND carry nothing and succeed; a completion queue of exactly the device's
 * {@code max_cqe} is made and one more is refused; a queue pair asking for more work requests or
 * SGEs than the device has is refused naming the limit; a port the device lacks is refused by
 * the provider, a port number no device can have by jrdma.
 */
@DeviceTest
@EveryKernel
class EdgeSizesDeviceTest {
    private static final long MARK = 0x5A5A5A5A5A5A5A5AL;

    @Test
    @Exercises("ibv_post_send")
    void zeroLengthRdmaWriteAndReadSucceedAndMoveNothing() {
        try (Loopback lo = new Loopback()) {
            lo.memA.segment().set(JAVA_LONG, 0, 1);
            lo.memB.segment().set(JAVA_LONG, 0, MARK);
            lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sgeCount(0).remote(lo.memB.remote(0, 8)));
            WorkCompletion write = lo.take().checkSuccess();
            assertEquals(1, write.wrId());
            assertEquals(WorkCompletionOpcode.RDMA_WRITE, write.opcode());
            assertEquals(MARK, lo.memB.segment().get(JAVA_LONG, 0));

            lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.RDMA_READ).sgeCount(0).remote(lo.memB.remote(0, 8)));
            WorkCompletion read = lo.take().checkSuccess();
            assertEquals(2, read.wrId());
            assertEquals(WorkCompletionOpcode.RDMA_READ, read.opcode());
            assertEquals(0, read.byteLength());
            assertEquals(1, lo.memA.segment().get(JAVA_LONG, 0));
            assertEquals(QueuePairState.RTS, lo.a.state(), "the connection goes on");
        }
    }

    @Test
    @Exercises("ibv_post_send")
    void aZeroSizeUdSendDeliversTheGrhAlone() {
        try (Loopback lo = new Loopback(QueuePairType.UD, Loopback.ALL, ConnectionOptions.DEFAULTS)) {
            int gid = TestDevices.gid(lo.context).index();
            AddressHandle ah = lo.pd.createAddressHandle(lo.endpointB, TestDevices.PORT, gid);
            lo.b.post(new ReceiveRequest().wrId(1).sge(lo.memB, 0, 40 + 64));
            lo.a.post(new SendRequest().wrId(2).sgeCount(0).datagram(ah, lo.endpointB.qpn(),
                    ConnectionOptions.DEFAULTS.qkey()));
            boolean received = false;
            for (int i = 0; i < 2; i++) {
                WorkCompletion wc = lo.take().checkSuccess();
                if (wc.wrId() == 1) {
                    assertEquals(40, wc.byteLength(), "the GRH and no payload");
                    assertEquals(lo.a.qpNumber(), wc.sourceQpNumber());
                    received = true;
                } else {
                    assertEquals(WorkCompletionOpcode.SEND, wc.opcode());
                }
            }
            assertTrue(received);
        }
    }

    @Test
    @Exercises("ibv_create_cq")
    void aCompletionQueueOfMaxCqeIsMadeAndOneMoreIsRefused() {
        try (Context context = TestDevices.device().open()) {
            int max = context.queryDevice().maxCqe();
            CompletionQueue largest = context.createCompletionQueue(max);
            assertTrue(largest.capacity() >= max, "granted " + largest.capacity() + " of " + max);
            largest.close();
            RdmaException e = assertThrows(RdmaException.class, () -> context.createCompletionQueue(max + 1));
            assertEquals(Verb.IBV_CREATE_CQ, e.verb());
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().endsWith("the device holds at most " + max + " completions per queue (max_cqe)"),
                    e.getMessage());
        }
    }

    @Test
    @Exercises("ibv_create_qp")
    void aQueuePairPastMaxQpWrOrMaxSgeIsRefusedNamingTheLimit() {
        try (Context context = TestDevices.device().open()) {
            DeviceAttributes device = context.queryDevice();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            RdmaException wr = assertThrows(RdmaException.class, () -> pd.queuePair(QueuePairType.RC)
                    .completionQueue(cq).maxWorkRequests(device.maxQpWr() + 1, 1).build());
            assertEquals(Errno.EINVAL, wr.errno());
            assertTrue(wr.getMessage().endsWith("the device's max_qp_wr is " + device.maxQpWr()), wr.getMessage());
            RdmaException sge = assertThrows(RdmaException.class, () -> pd.queuePair(QueuePairType.UD)
                    .completionQueue(cq).maxSges(1, device.maxSge() + 1).build());
            assertEquals(Errno.EINVAL, sge.errno());
            assertTrue(sge.getMessage().endsWith("the device's max_sge is " + device.maxSge()), sge.getMessage());
            QueuePair atTheLimits = pd.queuePair(QueuePairType.RC).completionQueue(cq)
                    .maxWorkRequests(device.maxQpWr(), 1).maxSges(device.maxSge(), 1).build();
            assertTrue(atTheLimits.capabilities().maxSendWorkRequests() >= device.maxQpWr());
        }
    }

    @Test
    @Exercises("ibv_query_port")
    void aPortTheDeviceLacksIsRefusedByTheProviderAndAnImpossibleOneByJrdma() {
        try (Context context = TestDevices.device().open()) {
            int missing = context.queryDevice().physicalPortCount() + 1;
            RdmaException e = assertThrows(RdmaException.class, () -> context.queryPort(missing));
            assertEquals(Verb.IBV_QUERY_PORT, e.verb());
            assertEquals(Errno.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("port " + missing), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> context.queryPort(0), "ports count from 1");
            assertThrows(IllegalArgumentException.class, () -> context.queryPort(256), "a port number is a u8");
        }
    }
}
