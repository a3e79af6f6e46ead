// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Type 2 memory windows through the extended post API: bound with {@code ibv_wr_bind_mw} by the
 * queue pair that serves them (type 2B), used by the peer's RDMA WRITE, and revoked by the
 * peer's {@code ibv_wr_send_inv} or the owner's {@code ibv_wr_local_inv}.
 */
@DeviceTest
@EveryKernel
class ExtendedWindowDeviceTest {
    private static final int WITH_INV = 8;
    private static final int RXE_WITH_INVALIDATE = 4;

    @Test
    @Exercises({"ibv_wr_bind_mw", "ibv_wr_send_inv", "ibv_wr_local_inv"})
    void bindUseAndInvalidateAType2Window() {
        try (Context context = TestDevices.device().open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            ExtendedCompletionQueue cq = context.extendedCompletionQueue(64).build();
            QueuePair a = pd.queuePair(QueuePairType.RC).completionQueue(cq.asCompletionQueue())
                    .extendedPost(SendOp.SEND_WITH_INV, SendOp.RDMA_WRITE).build();
            QueuePair b = pd.queuePair(QueuePairType.RC).completionQueue(cq.asCompletionQueue())
                    .extendedPost(SendOp.BIND_MW, SendOp.LOCAL_INV).build();
            MemoryRegion memA = pd.allocate(4096, Loopback.ALL);
            Set<Access> bindable = EnumSet.copyOf(Loopback.ALL);
            bindable.add(Access.MW_BIND);
            MemoryRegion memB = pd.allocate(4096, bindable);
            TestDevices.connectEachOther(a, b);
            ExtendedSendQueue sa = ExtendedSendQueue.of(a);
            ExtendedSendQueue sb = ExtendedSendQueue.of(b);
            ExtendedCompletions batch = new ExtendedCompletions(4);
            MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);

            int rkey1 = MemoryWindow.nextRkey(mw.rkey());
            sb.start().wrId(1).signaled(true).bindMemoryWindow(mw, rkey1, memB, 1024, 256,
                    EnumSet.of(Access.REMOTE_WRITE)).complete();
            assertEquals(WorkCompletionOpcode.BIND_MW, take(cq, batch, 1).opcode(0));
            // The window knows the key the extended bind gave it, as after a classic BIND_MW.
            assertEquals(rkey1, mw.rkey());
            assertEquals(new RemoteMemory(memB.address() + 1024, 256, rkey1), mw.remote());
            memA.segment().asSlice(0, 64).fill((byte) 0x5a);
            sa.start().wrId(2).signaled(true).rdmaWrite(new RemoteMemory(memB.address() + 1024, 256, rkey1), 0)
                    .sge(memA, 0, 64).complete();
            take(cq, batch, 2).checkSuccess(0);
            assertArrayEquals(memA.segment().asSlice(0, 64).toArray(JAVA_BYTE),
                    memB.segment().asSlice(1024, 64).toArray(JAVA_BYTE));

            b.post(new ReceiveRequest().wrId(100).sge(memB, 0, 64));
            sa.start().wrId(3).sendWithInvalidate(rkey1).sge(memA, 0, 8).complete();
            boolean invalidated = false;
            for (int seen = 0; seen < 2; ) {
                int n = poll(cq, batch);
                for (int i = 0; i < n; i++, seen++) {
                    batch.checkSuccess(i);
                    if (batch.wrId(i) == 100) {
                        assertEquals(rkey1, batch.invalidatedRkey(i), "flags " + batch.completionFlags(i));
                        // rxe writes the kernel's IB_WC_WITH_INVALIDATE (1 << 2) into the user CQE,
                        // which verbs.h reads as IBV_WC_IP_CSUM_OK; IBV_WC_WITH_INV is 1 << 3.
                        assertEquals(RXE_WITH_INVALIDATE, batch.completionFlags(i) & (RXE_WITH_INVALIDATE | WITH_INV),
                                "flags " + batch.completionFlags(i));
                        invalidated = true;
                    }
                }
            }
            assertEquals(true, invalidated);

            int rkey2 = MemoryWindow.nextRkey(rkey1);
            sb.start().wrId(4).signaled(true).bindMemoryWindow(mw, rkey2, memB, 2048, 128,
                    EnumSet.of(Access.REMOTE_WRITE)).complete();
            take(cq, batch, 4).checkSuccess(0);
            sb.start().wrId(5).signaled(true).localInvalidate(rkey2).complete();
            assertEquals(WorkCompletionOpcode.LOCAL_INV, take(cq, batch, 5).opcode(0));
            sa.start().wrId(6).signaled(true).rdmaWrite(new RemoteMemory(memB.address() + 2048, 128, rkey2), 0)
                    .sge(memA, 0, 64).complete();
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, take(cq, batch, 6).status(0),
                    "the invalidated window refuses the write");
        }
    }

    private static int poll(ExtendedCompletionQueue cq, ExtendedCompletions batch) {
        long deadline = System.nanoTime() + TestDevices.TIMEOUT.toNanos();
        int n;
        while ((n = cq.poll(batch)) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within " + TestDevices.TIMEOUT);
            }
        }
        return n;
    }

    /** Polls one completion, which must be {@code wrId}'s. */
    private static ExtendedCompletions take(ExtendedCompletionQueue cq, ExtendedCompletions batch, long wrId) {
        ExtendedCompletions one = new ExtendedCompletions(1);
        poll(cq, one);
        assertEquals(wrId, one.wrId(0), one.status(0).toString());
        return one;
    }
}
