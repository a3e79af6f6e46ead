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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Prepared extended sends over the stub provider (no device): what was prepared reaches the
 * provider's {@code ibv_wr_*} functions, the values that may change between posts reach the
 * WQE, the rest is refused at prepare time, a batch open on the queue pair makes a post refuse
 * (same thread) or wait (another thread) instead of spinning in {@code wr_start}, and posting
 * allocates nothing. Closing the queue pair or region is PreparedExtendedSendDeviceTest's.
 */
class PreparedExtendedSendTest {

    @Test
    void postsTheRequestWithTheChangedWrIdLengthAndFlag() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        SendRequest request = new SendRequest().wrId(1).sge(mr, 64, 100).signaled(false);
        try (PreparedExtendedSend send = PreparedExtendedSend.of(f.sq(), request)) {
            request.wrId(99).sge(mr, 0, 8);   // the prepared copy is independent of the request
            send.post();
            MemorySegment wqe = ExtendedStubProviderBench.lastWqe(f);
            assertEquals(1, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertEquals(rdma_h.IBV_WR_SEND(), wqe.get(JAVA_INT, StubProvider.WQE_OPCODE));
            assertEquals(0, wqe.get(JAVA_INT, StubProvider.WQE_FLAGS));
            assertEquals(mr.address() + 64, wqe.get(JAVA_LONG, StubProvider.WQE_SGE0_ADDR));
            assertEquals(100, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
            assertEquals(mr.lkey(), wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LKEY));
            WorkCompletion wc = new WorkCompletion();
            assertEquals(0, f.base().sendCq().poll(wc), "unsignalled as prepared");

            send.wrId(7).length(40).signaled(true).post();
            wqe = ExtendedStubProviderBench.lastWqe(f);
            assertEquals(7, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertEquals(rdma_h.IBV_SEND_SIGNALED(), wqe.get(JAVA_INT, StubProvider.WQE_FLAGS));
            assertEquals(40, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
            assertEquals(1, f.base().sendCq().poll(wc));
            assertEquals(7, wc.wrId());
            assertEquals(40, wc.byteLength());
            assertEquals(40, send.byteLength());
            assertTrue(send.tryPost());
            assertEquals(1, f.base().sendCq().poll(wc));

            assertThrows(IndexOutOfBoundsException.class, () -> send.length(101), "longer than prepared");
            assertThrows(IndexOutOfBoundsException.class, () -> send.length(-1));
            assertThrows(IllegalStateException.class, () -> send.remoteOffset(0), "a SEND has no remote memory");
            assertThrows(IllegalStateException.class, () -> send.immediateData(1), "a SEND has no immediate");
            assertEquals(40, send.byteLength(), "a refused change changes nothing");
        }
    }

    @Test
    void whatABatchWouldRefuseIsRefusedAtPrepare() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        // The queue pair was created for SEND only (and the stub has no rdma_write builder).
        assertThrows(IllegalStateException.class, () -> PreparedExtendedSend.of(f.sq(), new SendRequest()
                .opcode(SendOpcode.RDMA_WRITE).sge(mr, 0, 8).remote(mr.remote())));
        assertThrows(IllegalArgumentException.class, () -> PreparedExtendedSend.of(f.sq(), new SendRequest()
                .sge(mr, 0, 8).next(new SendRequest().sge(mr, 8, 8))), "a chain");
        assertThrows(IllegalArgumentException.class, () -> PreparedExtendedSend.of(f.sq(), new SendRequest(2)
                .sge(0, mr, 0, 8).sge(1, mr, 8, 8)), "two SGEs");
        assertThrows(IllegalArgumentException.class, () -> PreparedExtendedSend.of(f.sq(), new SendRequest()
                .sge(mr, 0, 8).inline(true)), "inline beyond the queue pair's max inline data (0)");
        assertThrows(IllegalArgumentException.class, () -> PreparedExtendedSend.of(f.sq(), new SendRequest()
                .opcode(SendOpcode.LOCAL_INV).sgeCount(0).invalidate(5)), "not prepared");
        assertTrue(f.qp().dependents().isEmpty(), "nothing refused stayed registered with the queue pair");
    }

    @Test
    void aBatchOpenInThisThreadMakesAPostRefuseRatherThanSpin() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        try (PreparedExtendedSend send = PreparedExtendedSend.of(f.sq(), new SendRequest().wrId(3).sge(mr, 0, 8))) {
            ExtendedSendQueue other = new ExtendedSendQueue(f.qp(), f.qpEx().address());
            other.start().wrId(4).signaled(true).send().sge(mr, 0, 16);
            IllegalStateException e = assertThrows(IllegalStateException.class, send::post);
            assertTrue(e.getMessage().contains("this thread"), e.getMessage());
            other.complete();
            send.post();   // the batch ended: the send queue is free again
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.base().sendCq().poll(wc));
            assertEquals(4, wc.wrId());
            assertEquals(1, f.base().sendCq().poll(wc));
            assertEquals(3, wc.wrId());
            assertEquals(0, f.base().sendCq().poll(wc), "the refused post built nothing");
        }
    }

    @Test
    void aBatchOpenInAnotherThreadMakesAPostWaitForIt() throws Exception {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        PreparedExtendedSend send = PreparedExtendedSend.of(f.sq(), new SendRequest().wrId(3).sge(mr, 0, 8));
        ExtendedSendQueue other = new ExtendedSendQueue(f.qp(), f.qpEx().address());
        CountDownLatch open = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread holder = Thread.ofPlatform().start(() -> {
            try {
                other.start().wrId(4).signaled(true).send().sge(mr, 0, 16);
                open.countDown();
                end.await();
                other.complete();
            } catch (Throwable t) {
                failure.set(t);
                open.countDown();
            }
        });
        assertTrue(open.await(30, TimeUnit.SECONDS));
        Thread poster = Thread.ofPlatform().start(send::post);
        poster.join(200);
        boolean waited = poster.isAlive();
        end.countDown();
        holder.join(30_000);
        poster.join(30_000);
        assertFalse(holder.isAlive() || poster.isAlive());
        assertEquals(null, failure.get());
        assertTrue(waited, "the post waited for the other thread's batch");
        WorkCompletion wc = new WorkCompletion();
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(4, wc.wrId(), "the batch completed first");
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(3, wc.wrId());
        send.close();
    }

    @Test
    void aClosedPreparedSendRefusesToPost() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        PreparedExtendedSend send = PreparedExtendedSend.of(f.sq(), new SendRequest().sge(f.base().mr(), 0, 8));
        send.close();
        assertThrows(IllegalStateException.class, send::post);
        assertThrows(IllegalStateException.class, send::tryPost);
        f.sq().start().send().sge(f.base().mr(), 0, 8).complete();   // the refusal left the send queue free
    }

    @Test
    void preparedExtendedPostsAllocateNothing() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(1024);
        PreparedExtendedSend send = PreparedExtendedSend.of(f.sq(), new SendRequest().sge(f.base().mr(), 0, 64)
                .signaled(false));
        Allocations.Steady run = Allocations.steadyState(i -> {
            send.wrId(i).post();
            return i;
        });
        assertEquals(0, run.bytes(), "bytes allocated by 20000 prepared extended sends");
        assertEquals(19_999, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
    }
}
