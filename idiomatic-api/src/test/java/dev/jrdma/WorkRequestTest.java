// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.generated.ibv_send_wr;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Work requests write the C structs in place (what can be checked without a memory region). */
class WorkRequestTest {
    @Test
    void sendRequestFieldsLiveInNativeMemory() {
        SendRequest wr = new SendRequest(2).wrId(42).immediateData(0x01020304);
        assertEquals(42, ibv_send_wr.wr_id(wr.segment()));
        assertEquals(42, wr.wrId());
        assertEquals(0x04030201, ibv_send_wr.imm_data(wr.segment()), "imm_data is stored big-endian");
        assertEquals(wr.segment().address() + ibv_send_wr.layout().byteSize(),
                ibv_send_wr.sg_list(wr.segment()).address(), "the SGE array follows the request");
        assertEquals(SendOpcode.SEND, wr.opcode());
        assertEquals(0, wr.sgeCount());
    }

    @Test
    void chainsLinkTheNativeRequestsAndRefuseCycles() {
        SendRequest a = new SendRequest();
        SendRequest b = new SendRequest();
        SendRequest c = new SendRequest();
        a.next(b);
        b.next(c);
        assertEquals(b.segment().address(), ibv_send_wr.next(a.segment()).address());
        assertThrows(IllegalArgumentException.class, () -> c.next(a));
        assertThrows(IllegalArgumentException.class, () -> a.next(a));
        b.next(null);
        assertEquals(0, ibv_send_wr.next(b.segment()).address());
        assertEquals("work request wr_id 0 (SEND)", a.find(a.segment().address()));

        ReceiveRequest r1 = new ReceiveRequest().wrId(1);
        ReceiveRequest r2 = new ReceiveRequest().wrId(2);
        r1.next(r2);
        assertEquals(r2.segment().address(), ibv_recv_wr.next(r1.segment()).address());
        assertThrows(IllegalArgumentException.class, () -> r2.next(r1));
        assertEquals("receive request wr_id 2", r1.find(r2.segment().address()));
    }

    @Test
    void sgeCountCannotExposeUnsetEntries() {
        assertThrows(IllegalStateException.class, () -> new SendRequest(2).sgeCount(1));
        assertThrows(IndexOutOfBoundsException.class, () -> new SendRequest(2).sgeCount(3));
        assertThrows(IllegalArgumentException.class, () -> new ReceiveRequest(0));
        new SendRequest().sgeCount(0);
        assertEquals(MemorySegment.NULL.address(), 0);
    }

    @Test
    void rebuildingRequestsAndReadingCompletionsAllocateNothing() {
        SendRequest send = new SendRequest(2);
        ReceiveRequest recv = new ReceiveRequest();
        WorkCompletion wc = new WorkCompletion();
        Allocations.Steady run = Allocations.steadyState(i -> {
            send.wrId(i).opcode((i & 1) == 0 ? SendOpcode.RDMA_WRITE : SendOpcode.SEND_WITH_IMM)
                    .remote(0x10000L + i, 64, 0x1234).signaled((i & 7) == 0).inline((i & 2) == 0)
                    .immediateData(i).compareAdd(i).swap(-i);
            recv.wrId(i);
            return wc.wrId() + wc.byteLength() + wc.status().ordinal() + wc.opcode().ordinal() + wc.qpNumber()
                    + (wc.isSuccess() ? 1 : 0) + (wc.hasImmediate() ? wc.immediateData() : 0);
        });
        assertEquals(0, run.bytes(), "bytes allocated re-building 20000 requests and reading completions");
        assertEquals(20_000L * run.passes(), run.sum(), "each zeroed completion reads as SUCCESS (ordinal 0) + isSuccess");
    }

    @Test
    void remoteRefusesANegativeLength() {
        assertThrows(IllegalArgumentException.class, () -> new SendRequest().remote(0x1000, -1, 7));
    }
}
