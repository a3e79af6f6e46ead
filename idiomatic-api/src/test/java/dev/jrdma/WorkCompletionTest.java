// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_wc;
import org.junit.jupiter.api.Test;

/** The completion flyweight reads the ibv_wc layout; filled here by hand as a provider would. */
class WorkCompletionTest {
    @Test
    void layoutMatchesTheJavadocDiagram() {
        assertEquals(48, ibv_wc.layout().byteSize());
        assertEquals(0, ibv_wc.wr_id$offset());
        assertEquals(8, ibv_wc.status$offset());
        assertEquals(12, ibv_wc.opcode$offset());
        assertEquals(16, ibv_wc.vendor_err$offset());
        assertEquals(20, ibv_wc.byte_len$offset());
        assertEquals(24, ibv_wc.imm_data$offset());
        assertEquals(28, ibv_wc.qp_num$offset());
        assertEquals(32, ibv_wc.src_qp$offset());
        assertEquals(36, ibv_wc.wc_flags$offset());
    }

    @Test
    void readsASuccessfulReceive() {
        WorkCompletion wc = new WorkCompletion();
        ibv_wc.wr_id(wc.segment(), 0x1234_5678_9abcL);
        ibv_wc.status(wc.segment(), WorkCompletionStatus.SUCCESS.value());
        ibv_wc.opcode(wc.segment(), WorkCompletionOpcode.RECV.value());
        ibv_wc.byte_len(wc.segment(), 12);
        ibv_wc.qp_num(wc.segment(), 0x11);
        ibv_wc.wc_flags(wc.segment(), 2);   // IBV_WC_WITH_IMM
        ibv_wc.imm_data(wc.segment(), Integer.reverseBytes(0xcafe));
        assertEquals(0x1234_5678_9abcL, wc.wrId());
        assertTrue(wc.isSuccess());
        assertSame(wc, wc.checkSuccess());
        assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
        assertEquals(12, wc.byteLength());
        assertEquals(0x11, wc.qpNumber());
        assertTrue(wc.hasImmediate());
        assertEquals(0xcafe, wc.immediateData());
        assertEquals("wr_id 20015998343868: SUCCESS RECV 12 bytes on QP 0x11", wc.toString());
    }

    @Test
    void aFailedCompletionThrowsWithItsStatus() {
        WorkCompletion wc = new WorkCompletion();
        ibv_wc.wr_id(wc.segment(), 7);
        ibv_wc.status(wc.segment(), WorkCompletionStatus.REM_ACCESS_ERR.value());
        ibv_wc.qp_num(wc.segment(), 0x2a);
        assertFalse(wc.isSuccess());
        WorkCompletionException e = assertThrows(WorkCompletionException.class, wc::checkSuccess);
        assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, e.status());
        assertEquals(7, e.wrId());
        assertEquals(0x2a, e.queuePairNumber());
        assertEquals("work request wr_id 7 on queue pair 0x2a completed with REM_ACCESS_ERR (remote access error)",
                e.getMessage());
    }

    @Test
    void batchViewsAreFixedSlots() {
        WorkCompletions batch = new WorkCompletions(4);
        assertEquals(4, batch.capacity());
        assertEquals(0, batch.count());
        assertThrows(IndexOutOfBoundsException.class, () -> batch.get(0));
        for (int i = 0; i < 4; i++) {
            ibv_wc.wr_id(batch.segment().asSlice(i * 48L, 48), 100 + i);
        }
        batch.count(3);
        assertEquals(102, batch.get(2).wrId());
        assertSame(batch.get(1), batch.get(1));
        assertThrows(IndexOutOfBoundsException.class, () -> batch.get(3));
    }
}
