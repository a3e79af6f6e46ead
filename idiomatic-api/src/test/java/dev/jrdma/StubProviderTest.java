// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * The stub-provider seam works end to end without a device: the public post and poll reach the
 * stub's ops table, the WQE it writes carries what the request said, and poll hands back one
 * completion per signalled send or receive with the right wr_id. The JMH benchmark
 * (StubProviderBench) measures this same path, so a broken seam must fail here first.
 */
class StubProviderTest {

    @Test
    void sendIsWrittenAsWqeAndCompletesWithItsWrId() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        SendRequest send = new SendRequest().wrId(0xfeed_beefL).sge(f.mr(), 64, 100).signaled(true);
        f.qp().post(send);

        MemorySegment wqe = StubProvider.lastWqe(f, true);
        assertEquals(0xfeed_beefL, wqe.get(ValueLayout.JAVA_LONG, StubProvider.WQE_WR_ID));
        assertEquals(SendOpcode.SEND.value(), wqe.get(ValueLayout.JAVA_INT, StubProvider.WQE_OPCODE));
        assertEquals(1, wqe.get(ValueLayout.JAVA_INT, StubProvider.WQE_NUM_SGE));
        assertEquals(f.mr().segment().address() + 64, wqe.get(ValueLayout.JAVA_LONG, StubProvider.WQE_SGE0_ADDR));
        assertEquals(100, wqe.get(ValueLayout.JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
        assertEquals(f.mr().lkey(), wqe.get(ValueLayout.JAVA_INT, StubProvider.WQE_SGE0_LKEY));
        assertTrue((wqe.get(ValueLayout.JAVA_INT, StubProvider.WQE_FLAGS) & 2) != 0, "IBV_SEND_SIGNALED in the WQE");

        WorkCompletion wc = new WorkCompletion();
        assertEquals(1, f.sendCq().poll(wc));
        assertEquals(0xfeed_beefL, wc.wrId());
        assertTrue(wc.isSuccess(), wc::toString);
        assertEquals(WorkCompletionOpcode.SEND, wc.opcode());
        assertEquals(100, wc.byteLength());
        assertEquals(f.qp().qpNumber(), wc.qpNumber());
        assertEquals(0, f.sendCq().poll(wc), "one completion per signalled post");
    }

    @Test
    void unsignalledSendWritesWqeWithoutCompletion() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        f.qp().post(new SendRequest().wrId(7).sge(f.mr(), 0, 8).signaled(false));
        assertEquals(7, StubProvider.lastWqe(f, true).get(ValueLayout.JAVA_LONG, StubProvider.WQE_WR_ID));
        assertEquals(0, f.sendCq().poll(new WorkCompletion()));
    }

    @Test
    void receivesCompleteInOrderOnTheReceiveQueue() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        ReceiveRequest recv = new ReceiveRequest().sge(f.mr());
        for (long id = 1; id <= 3; id++) {
            f.qp().post(recv.wrId(id));
        }
        assertEquals(3, StubProvider.lastWqe(f, false).get(ValueLayout.JAVA_LONG, StubProvider.WQE_WR_ID));
        WorkCompletion wc = new WorkCompletion();
        for (long id = 1; id <= 3; id++) {
            assertEquals(1, f.receiveCq().poll(wc));
            assertEquals(id, wc.wrId());
            assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
            assertEquals(4096, wc.byteLength());
        }
        assertEquals(0, f.receiveCq().poll(wc));
        assertEquals(0, f.sendCq().poll(wc), "receives complete on the receive CQ only");
        assertEquals(0, StubProvider.overruns(f.receiveCq()));
    }
}
