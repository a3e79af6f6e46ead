// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.Refusals.assertRefused;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_qp_open_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** XRC, extended SRQs and tag matching: what rxe creates, and what it refuses. */
@DeviceTest
@EveryKernel
class XrcDeviceTest extends DeviceFixture {
    @Test
    @Exercises({"ibv_create_srq_ex"})
    void anExtendedSrqWithACompletionQueueReceivesForAQueuePair() {
        CompletionQueue cq = context.createCompletionQueue(16);
        // IBV_SRQ_INIT_ATTR_CQ takes the provider's create_srq_ex, not plain ibv_create_srq.
        SharedReceiveQueue srq = pd.sharedReceiveQueue().maxWorkRequests(8).maxSges(1).completionQueue(cq).build();
        assertTrue(srq.maxWorkRequests() >= 8, "granted " + srq.maxWorkRequests());
        assertTrue(cq.dependents().contains(srq), "the SRQ depends on its CQ");
        QueuePair a = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
        QueuePair b = pd.queuePair(QueuePairType.RC).completionQueue(cq).sharedReceiveQueue(srq).build();
        TestDevices.connectEachOther(a, b);
        MemoryRegion send = pd.allocate(64);
        MemoryRegion receive = pd.allocate(64);
        srq.post(new ReceiveRequest().wrId(9).sge(receive, 0, 64));
        send.segment().set(JAVA_LONG, 0, 0x5152535455565758L);
        a.post(new SendRequest().wrId(1).opcode(SendOpcode.SEND).sge(send, 0, 8));
        WorkCompletion wc = new WorkCompletion();
        boolean sent = false;
        boolean received = false;
        for (int i = 0; i < 2; i++) {
            cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
            sent |= wc.wrId() == 1;
            received |= wc.wrId() == 9 && wc.byteLength() == 8;
        }
        assertTrue(sent && received, "the send and the SRQ's receive completed");
        assertEquals(0x5152535455565758L, receive.segment().get(JAVA_LONG, 0));
    }

    @Test
    @Exercises(value = {"ibv_open_xrcd", "ibv_close_xrcd", "ibv_open_qp"},
            refused = "rxe has no XRC (IBV_DEVICE_XRC unset): librxe 44 leaves open_xrcd and open_qp to libibverbs'"
                    + " EOPNOTSUPP stubs, so no XRC domain exists to close or to open a QP in")
    void xrcDomainsAreRefused() {
        assertFalse(context.queryDevice().supportsXrc(), "rxe reports no IBV_DEVICE_XRC");
        assertRefused(() -> context.openXrcDomain(XrcDomain.Options.PRIVATE), Verb.IBV_OPEN_XRCD, context,
                "XRC domains");
        // XrcDomain.openTargetQueuePair needs a domain; the provider's open_qp op itself answers
        // EOPNOTSUPP before looking at the (absent) domain, which is safe to show here only
        // because it is libibverbs' stub.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_open_attr.layout());
            ibv_qp_open_attr.comp_mask(attr, rdma_h.IBV_QP_OPEN_ATTR_NUM() | rdma_h.IBV_QP_OPEN_ATTR_TYPE());
            ibv_qp_open_attr.qp_type(attr, rdma_h.IBV_QPT_XRC_RECV());
            MemorySegment errno = Errno.allocate(arena);
            assertEquals(0, ExtensionVerbs.ibv_open_qp(errno, context.handle(), attr).address());
            assertEquals(Errno.EOPNOTSUPP, Errno.get(errno));
        }
    }

    @Test
    @Exercises(value = {"ibv_create_qp_ex"},
            refused = "rxe has no XRC: the kernel's rxe refuses an XRC initiator QP (IBV_QPT_XRC_SEND) with EOPNOTSUPP")
    void xrcQueuePairsAreRefused() {
        CompletionQueue cq = context.createCompletionQueue(16);
        assertRefused(() -> pd.createXrcSendQueuePair(cq, 4, 1), Verb.IBV_CREATE_QP, context, "XRC queue pairs");
        assertTrue(pd.dependents().isEmpty(), "nothing was left behind");
    }

    @Test
    @Exercises(value = {"ibv_get_srq_num", "ibv_post_srq_ops"},
            refused = "rxe has neither XRC SRQ numbers nor tag matching: librxe 44 leaves get_srq_num and"
                    + " post_srq_ops to libibverbs' EOPNOTSUPP stubs, and the kernel refuses IBV_SRQT_TM")
    void srqNumbersAndTagMatchingAreRefused() {
        assertFalse(context.queryDevice().tagMatching().supported(), "rxe reports no tag matching");
        CompletionQueue cq = context.createCompletionQueue(16);
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(8, 1);
        assertRefused(srq::srqNumber, Verb.IBV_GET_SRQ_NUM, context, "SRQ numbers (XRC)");
        assertRefused(() -> TagOperation.sync(3, 0).postTo(srq), Verb.IBV_POST_SRQ_OPS, context, "tag matching");
        assertRefused(() -> pd.sharedReceiveQueue().completionQueue(cq).tagMatching(4, 4).build(),
                Verb.IBV_CREATE_SRQ_EX, context, "tag-matching SRQs");
        assertEquals(1, pd.dependents().size(), "only the basic SRQ exists");
    }
}
