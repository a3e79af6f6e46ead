// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The misuses jrdma refuses in Java before the provider is asked, each beside the provider's own
 * answer to the same call made directly through the bindings: jrdma's is the clearer one (it
 * names the state, the address or the range), and for a send posted in RESET the safer one too.
 */
@DeviceTest
@EveryKernel
class MisuseRefusalsDeviceTest {
    /**
     * Posting in RESET: jrdma throws IllegalStateException. rxe's post_send copies the request
     * into the send queue first and the kernel then answers EINVAL: the request stays queued,
     * so the raw queue pair is closed right after (jrdma never lets one be connected after that).
     */
    @Test
    @Exercises("ibv_post_send")
    void aSendInResetIsRefusedByJrdmaAndByTheProvider() {
        try (Context context = TestDevices.device().open(); Arena arena = Arena.ofConfined()) {
            QueuePair qp = TestDevices.rcQueuePair(context);
            MemoryRegion mr = qp.protectionDomain().allocate(64);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> qp.post(new SendRequest().wrId(1).sge(mr, 0, 8)));
            assertTrue(e.getMessage().contains("RESET"), e.getMessage());

            MemorySegment wr = RawSendRequests.of(arena, rdma_h.IBV_WR_SEND(), mr.address(), 8, mr.lkey());
            int rc = RawSendRequests.post(qp, arena, wr);
            assertEquals(Errno.EINVAL, rc, "the provider's answer to a send in RESET");
            assertEquals(QueuePairState.RESET, qp.state());
            qp.close();
        }
    }

    /**
     * An atomic on an unaligned target: jrdma throws IllegalArgumentException; librxe's own
     * check refuses the post with EINVAL (nothing reaches the wire, the queue pair stays in RTS).
     */
    @Test
    @Exercises("ibv_post_send")
    void anUnalignedAtomicIsRefusedByJrdmaAndByTheProvider() {
        try (Loopback lo = new Loopback(); Arena arena = Arena.ofConfined()) {
            RemoteMemory unaligned = lo.memB.remote(4, 8);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> lo.a.post(
                    new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).sge(lo.memA, 0, 8).remote(unaligned)));
            assertTrue(e.getMessage().contains("8-byte aligned address, not 0x" + Long.toHexString(unaligned.address())),
                    e.getMessage());

            MemorySegment wr = RawSendRequests.atomic(RawSendRequests.of(arena, rdma_h.IBV_WR_ATOMIC_FETCH_AND_ADD(),
                    lo.memA.address(), 8, lo.memA.lkey()), 1, unaligned, 1);
            int rc = RawSendRequests.post(lo.a, arena, wr);
            assertEquals(Errno.EINVAL, rc, "the provider's answer to an unaligned atomic");
            assertEquals(QueuePairState.RTS, lo.a.state());
            lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8)
                    .remote(lo.memB.remote(0, 8)));
            assertEquals(2, lo.take().checkSuccess().wrId(), "nothing of the refused post was sent");
        }
    }

    /**
     * A completion vector the device lacks: jrdma throws IllegalArgumentException naming the range
     * (CompletionVectorDeviceTest checks the message); the provider answers EINVAL.
     */
    @Test
    @Exercises("ibv_create_cq")
    void aCompletionVectorTheDeviceLacksIsRefusedByJrdmaAndByTheProvider() {
        try (Context context = TestDevices.device().open(); Arena arena = Arena.ofConfined()) {
            int vectors = context.completionVectors();
            assertThrows(IllegalArgumentException.class, () -> context.createCompletionQueue(8, null, vectors));
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment cq = ErrnoVerbs.ibv_create_cq(errno, context.handle(), 8, MemorySegment.NULL,
                    MemorySegment.NULL, vectors);
            if (cq.address() != 0) {
                rdma_h.ibv_destroy_cq(cq);
            }
            assertEquals(0, cq.address(), "created on vector " + vectors + " of " + vectors);
            assertEquals(Errno.EINVAL, Errno.get(errno));
        }
    }
}
