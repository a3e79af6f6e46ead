// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Prepared requests over the stub provider (no device): the provider receives the structs the
 * prepared copy holds, the values that may change between posts reach the WQE, everything else
 * is checked once at prepare time and refused there, and a closed prepared request (or caller
 * memory whose arena closed) refuses to post. The device behaviour, including a close of the
 * queue pair or region, is PreparedRequestDeviceTest's.
 */
class PreparedRequestTest {

    @Test
    void preparedSendPostsItsCopyWithTheChangedWrIdLengthAndFlag() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        SendRequest request = new SendRequest().wrId(1).sge(f.mr(), 64, 100).signaled(false);
        try (PreparedSend send = PreparedSend.of(f.qp(), request)) {
            request.wrId(99).sge(f.mr(), 0, 8);   // the copy is independent of the request from now on
            send.post();
            MemorySegment wqe = StubProvider.lastWqe(f, true);
            assertEquals(1, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertEquals(f.mr().address() + 64, wqe.get(JAVA_LONG, StubProvider.WQE_SGE0_ADDR));
            assertEquals(100, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
            assertEquals(0, f.sendCq().poll(new WorkCompletion()), "unsignalled as prepared");

            send.wrId(7).length(40).signaled(true).post();
            wqe = StubProvider.lastWqe(f, true);
            assertEquals(7, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertEquals(40, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.sendCq().poll(wc));
            assertEquals(7, wc.wrId());
            assertEquals(40, wc.byteLength());
            assertEquals(40, send.byteLength(0));

            assertThrows(IndexOutOfBoundsException.class, () -> send.length(101), "longer than prepared");
            assertThrows(IndexOutOfBoundsException.class, () -> send.length(-1));
            assertThrows(IllegalStateException.class, () -> send.remoteOffset(0), "a SEND has no remote memory");
            assertThrows(IndexOutOfBoundsException.class, () -> send.wrId(1, 5), "a chain of one");
        }
    }

    @Test
    void aChainIsPostedInOneCallWithEachWrId() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        SendRequest second = new SendRequest().wrId(2).sge(f.mr(), 128, 16);
        SendRequest head = new SendRequest().wrId(1).sge(f.mr(), 0, 16).next(second);
        try (PreparedSend send = PreparedSend.of(f.qp(), head)) {
            assertEquals(2, send.size());
            send.wrId(1, 22).post();
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.sendCq().poll(wc));
            assertEquals(1, wc.wrId());
            assertEquals(1, f.sendCq().poll(wc));
            assertEquals(22, wc.wrId());
            assertEquals(0, f.sendCq().poll(wc));
        }
    }

    @Test
    void remoteOffsetMovesTheTargetWithinTheRemoteMemoryPrepared() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        SendRequest write = new SendRequest().opcode(SendOpcode.RDMA_WRITE).sge(f.mr(), 0, 64)
                .remote(0x10_0000L, 256, 0x1234);
        try (PreparedSend send = PreparedSend.of(f.qp(), write)) {
            send.remoteOffset(192).post();   // 64 bytes at 192: the last that fit 256
            assertThrows(IndexOutOfBoundsException.class, () -> send.remoteOffset(193));
            assertThrows(IndexOutOfBoundsException.class, () -> send.remoteOffset(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> send.remoteOffset(250), "64 bytes do not fit at 250");
        }
        try (PreparedSend send = PreparedSend.of(f.qp(), write)) {
            send.length(6).remoteOffset(250).post();
            assertThrows(IndexOutOfBoundsException.class, () -> send.length(7), "7 bytes at 250 overrun 256");
            assertEquals(6, send.byteLength(0));
        }
    }

    @Test
    void prepareRefusesWhatAPostWouldRefuse() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        // no remote memory for a WRITE
        assertThrows(IllegalStateException.class, () -> PreparedSend.of(f.qp(),
                new SendRequest().opcode(SendOpcode.RDMA_WRITE).sge(f.mr(), 0, 8)));
        // inline larger than the queue pair's limit (the fixture's is 0)
        assertThrows(IllegalArgumentException.class, () -> PreparedSend.of(f.qp(),
                new SendRequest().sge(f.mr(), 0, 8).inline(true)));
        // an atomic without its one 8-byte SGE
        assertThrows(IllegalArgumentException.class, () -> PreparedSend.of(f.qp(),
                new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).sge(f.mr(), 0, 16).remote(0x1000, 8, 1)));
    }

    @Test
    void aClosedPreparedRequestRefusesToPost() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        PreparedSend send = PreparedSend.of(f.qp(), new SendRequest().sge(f.mr(), 0, 8));
        PreparedReceive recv = PreparedReceive.of(f.qp(), new ReceiveRequest().sge(f.mr(), 0, 8));
        assertTrue(f.qp().dependents().contains(send), "a dependent of its queue pair");
        assertTrue(f.mr().dependents().contains(recv), "a dependent of its region");
        send.close();
        recv.close();
        assertTrue(send.isClosed());
        assertThrows(IllegalStateException.class, send::post);
        assertThrows(IllegalStateException.class, recv::tryPost);
        assertFalse(f.qp().dependents().contains(send), "closing it leaves its owners");
    }

    @Test
    void preparedReceiveCompletesWithItsWrIdAndLength() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        try (PreparedReceive recv = PreparedReceive.of(f.qp(), new ReceiveRequest().wrId(5).sge(f.mr(), 0, 512))) {
            recv.post();
            recv.wrId(6).length(100).post();
            assertThrows(IndexOutOfBoundsException.class, () -> recv.length(513));
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.receiveCq().poll(wc));
            assertEquals(5, wc.wrId());
            assertEquals(512, wc.byteLength());
            assertEquals(1, f.receiveCq().poll(wc));
            assertEquals(6, wc.wrId());
            assertEquals(100, wc.byteLength());
        }
    }

    @Test
    void callerMemoryWhoseArenaClosedIsRefusedAtPost() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        Arena arena = Arena.ofShared();
        MemorySegment mine = arena.allocate(256);
        MemoryRegion mr = MemoryRegion.overStubProvider(f.pd(), f.mr().handle(), mine);
        PreparedSend send = PreparedSend.of(f.qp(), new SendRequest().sge(mr, 0, 8).signaled(false));
        send.post();
        arena.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, send::post);
        assertTrue(e.getMessage().contains("arena"), e.getMessage());
    }

    @Test
    void preparedPostsAllocateNothing() {
        StubProvider.Fixture f = StubProvider.open(1024, 4096);
        PreparedSend send = PreparedSend.of(f.qp(), new SendRequest().sge(f.mr(), 0, 64).signaled(false));
        PreparedReceive recv = PreparedReceive.of(f.qp(), new ReceiveRequest().sge(f.mr(), 64, 64));
        assertPostsAllocateNothing(f, send, recv, "prepared");
    }

    /** Steady-state rounds of a send through {@code send}, a receive through {@code recv} and a poll allocate nothing. */
    static void assertPostsAllocateNothing(StubProvider.Fixture f, PreparedSend send, PreparedReceive recv, String kind) {
        WorkCompletion wc = new WorkCompletion();
        Allocations.Steady run = Allocations.steadyState(i -> {
            send.wrId(i).post();
            recv.wrId(i).post();
            return f.receiveCq().poll(wc);
        });
        assertEquals(0, run.bytes(), "bytes allocated by 20000 " + kind + " sends, receives and polls");
        assertTrue(run.sum() > 0 && wc.isSuccess());
    }
}
