// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The extended post path over the stub provider, on the host: what {@link ExtendedSendQueue}
 * writes reaches the provider's {@code ibv_wr_*} functions (the WQE the stub records), a batch
 * completes with the signalled requests' completions, and an abort leaves nothing behind.
 */
class ExtendedStubProviderTest {
    @Test
    void aBatchReachesTheProvidersBuilders() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(64);
        MemoryRegion mr = f.base().mr();
        f.sq().start().wrId(77).signaled(true).send().sge(mr, 128, 40).complete();
        MemorySegment wqe = ExtendedStubProviderBench.lastWqe(f);
        assertEquals(77, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
        assertEquals(rdma_h.IBV_WR_SEND(), wqe.get(JAVA_INT, StubProvider.WQE_OPCODE));
        assertEquals(rdma_h.IBV_SEND_SIGNALED(), wqe.get(JAVA_INT, StubProvider.WQE_FLAGS));
        assertEquals(1, wqe.get(JAVA_INT, StubProvider.WQE_NUM_SGE));
        assertEquals(mr.address() + 128, wqe.get(JAVA_LONG, StubProvider.WQE_SGE0_ADDR));
        assertEquals(40, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
        assertEquals(mr.lkey(), wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LKEY));
        WorkCompletion wc = new WorkCompletion();
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(77, wc.wrId());
        assertEquals(40, wc.byteLength());

        f.sq().start().wrId(78).send().sge(mr, 0, 8);
        f.sq().abort();
        assertEquals(77, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID),
                "the aborted request was dropped");
        assertEquals(0, f.base().sendCq().poll(wc));
        // The stub has no local_inv builder (it has those the CLI's loops call).
        try (var batch = f.sq().start()) {
            assertThrows(IllegalStateException.class, () -> batch.localInvalidate(mr.rkey()));
        }
    }

    @Test
    void aSecondPosterOfTheQueuePairInTheSameThreadIsRefusedRatherThanSpin() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue other = new ExtendedSendQueue(f.qp(), f.qpEx().address());
        f.sq().start().wrId(5).signaled(true).send().sge(mr, 0, 8);
        // A second ibv_wr_start would spin on the provider's send queue lock, in this thread, forever.
        IllegalStateException e = assertThrows(IllegalStateException.class, other::start);
        assertTrue(e.getMessage().contains("this thread"), e.getMessage());
        assertFalse(other.isStarted());
        f.sq().complete();
        other.start().wrId(6).signaled(true).send().sge(mr, 8, 8).complete();
        WorkCompletion wc = new WorkCompletion();
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(5, wc.wrId());
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(6, wc.wrId());
    }
}
