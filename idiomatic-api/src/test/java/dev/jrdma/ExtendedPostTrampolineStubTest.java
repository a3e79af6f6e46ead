// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.ExtendedPostTrampoline;
import dev.jrdma.bindings.shim.ExtendedPostVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The one-call routine's UD step and its skips, driven through a post block filled by hand
 * against the stub provider's queue pair: {@code wr_set_ud_addr} receives the address handle,
 * remote QPN and Q_Key in the right registers (values with bit 31 and high bits set), and the
 * routine of a request without data calls no data setter and loads no builder argument. (The
 * API's UD path needs an address handle, which the stub provider does not make; the rest of the
 * routine is ConfinedExtendedSendTest's.) Not run where the routine is not used: the fallback
 * has no block.
 */
class ExtendedPostTrampolineStubTest {
    private static final long REMOTE_QPN = 28;
    private static final long REMOTE_QKEY = 32;
    private static final long REMOTE_AH = 40;

    @Test
    void setUdAddrGetsTheDestinationAndAnEmptyDataSlotIsSkipped() {
        assumeTrue(ExtendedPostTrampoline.available(), "the one-call routine is not used in this run");
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        long qpEx = f.qpEx().address();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment b = arena.allocate(ExtendedPostTrampoline.BLOCK_SIZE, 8);
            b.set(JAVA_LONG, ExtendedPostTrampoline.QP_EX_AT, qpEx);
            b.set(JAVA_LONG, ExtendedPostTrampoline.START_AT, fn(qpEx, ExtendedPostVerbs.WR_START));
            b.set(JAVA_LONG, ExtendedPostTrampoline.WR_ID_AT, 0xC0FF_EE00_0000_0001L);
            b.set(JAVA_LONG, ExtendedPostTrampoline.WR_FLAGS_AT, 0);
            b.set(JAVA_LONG, ExtendedPostTrampoline.OPERATION_AT, fn(qpEx, ExtendedPostVerbs.WR_SEND));
            for (int i = 0; i < 4; i++) {   // wr_send takes none of them
                b.set(JAVA_LONG, ExtendedPostTrampoline.OPERATION_ARGS_AT + 8L * i, -1L);
            }
            b.set(JAVA_LONG, ExtendedPostTrampoline.DATA_AT, 0);
            b.set(JAVA_LONG, ExtendedPostTrampoline.UD_AT, fn(qpEx, ExtendedPostVerbs.WR_SET_UD_ADDR));
            b.set(JAVA_LONG, ExtendedPostTrampoline.UD_ARGS_AT, 0xFEDC_BA98_7654_3210L);
            b.set(JAVA_LONG, ExtendedPostTrampoline.UD_ARGS_AT + 8, 0x80AB_CDEFL);
            b.set(JAVA_LONG, ExtendedPostTrampoline.UD_ARGS_AT + 16, 0x8000_0011L);
            b.set(JAVA_LONG, ExtendedPostTrampoline.COMPLETE_AT, fn(qpEx, ExtendedPostVerbs.WR_COMPLETE));
            b.set(JAVA_LONG, ExtendedPostTrampoline.ROUTINE_AT, ExtendedPostTrampoline.routine(0, 0, true));

            assertEquals(0, ExtendedPostTrampoline.post(b.address()));

            MemorySegment wqe = ExtendedStubProviderBench.lastWqe(f);
            assertEquals(0xC0FF_EE00_0000_0001L, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertEquals(rdma_h.IBV_WR_SEND(), wqe.get(JAVA_INT, StubProvider.WQE_OPCODE));
            assertEquals(0, wqe.get(JAVA_INT, StubProvider.WQE_NUM_SGE), "no data setter called");
            MemorySegment r = ExtendedStubProviderBench.lastRemote(f);
            assertEquals(0xFEDC_BA98_7654_3210L, r.get(JAVA_LONG, REMOTE_AH));
            assertEquals(0x80AB_CDEF, r.get(JAVA_INT, REMOTE_QPN));
            assertEquals(0x8000_0011, r.get(JAVA_INT, REMOTE_QKEY));
        }
    }

    private static long fn(long qpEx, long offset) {
        return ExtendedPostVerbs.function(qpEx, offset).address();
    }
}
