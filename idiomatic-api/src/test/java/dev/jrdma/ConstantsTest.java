// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The enums carry the C values of verbs.h (checked against the generated constants). */
class ConstantsTest {
    @Test
    void accessFlags() {
        assertEquals(IBV_ACCESS_LOCAL_WRITE(), Access.LOCAL_WRITE.bit());
        assertEquals(IBV_ACCESS_REMOTE_WRITE(), Access.REMOTE_WRITE.bit());
        assertEquals(IBV_ACCESS_REMOTE_READ(), Access.REMOTE_READ.bit());
        assertEquals(IBV_ACCESS_REMOTE_ATOMIC(), Access.REMOTE_ATOMIC.bit());
        assertEquals(IBV_ACCESS_MW_BIND(), Access.MW_BIND.bit());
        assertEquals(IBV_ACCESS_ON_DEMAND(), Access.ON_DEMAND.bit());
        assertEquals(IBV_ACCESS_HUGETLB(), Access.HUGETLB.bit());
        assertEquals(IBV_ACCESS_RELAXED_ORDERING(), Access.RELAXED_ORDERING.bit());
        assertEquals(EnumSet.of(Access.LOCAL_WRITE), Access.DEFAULT);
        Access.DEFAULT.forEach(a -> assertTrue(a == Access.LOCAL_WRITE));
        int flags = Access.flags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        assertEquals(IBV_ACCESS_LOCAL_WRITE() | IBV_ACCESS_REMOTE_READ(), flags);
        assertEquals(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ), Access.of(flags));
    }

    @Test
    void workCompletionStatuses() {
        Map<WorkCompletionStatus, Integer> c = Map.ofEntries(
                Map.entry(WorkCompletionStatus.SUCCESS, IBV_WC_SUCCESS()),
                Map.entry(WorkCompletionStatus.LOC_LEN_ERR, IBV_WC_LOC_LEN_ERR()),
                Map.entry(WorkCompletionStatus.LOC_QP_OP_ERR, IBV_WC_LOC_QP_OP_ERR()),
                Map.entry(WorkCompletionStatus.LOC_PROT_ERR, IBV_WC_LOC_PROT_ERR()),
                Map.entry(WorkCompletionStatus.WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR()),
                Map.entry(WorkCompletionStatus.REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR()),
                Map.entry(WorkCompletionStatus.REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR()),
                Map.entry(WorkCompletionStatus.REM_OP_ERR, IBV_WC_REM_OP_ERR()),
                Map.entry(WorkCompletionStatus.RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR()),
                Map.entry(WorkCompletionStatus.RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR()),
                Map.entry(WorkCompletionStatus.FATAL_ERR, IBV_WC_FATAL_ERR()),
                Map.entry(WorkCompletionStatus.GENERAL_ERR, IBV_WC_GENERAL_ERR()),
                Map.entry(WorkCompletionStatus.TM_RNDV_INCOMPLETE, IBV_WC_TM_RNDV_INCOMPLETE()));
        c.forEach((status, value) -> {
            assertEquals(value, status.value(), status.name());
            assertSame(status, WorkCompletionStatus.of(value));
        });
        for (WorkCompletionStatus s : WorkCompletionStatus.values()) {
            if (s != WorkCompletionStatus.UNKNOWN) {
                assertSame(s, WorkCompletionStatus.of(s.value()));
            }
        }
        assertSame(WorkCompletionStatus.UNKNOWN, WorkCompletionStatus.of(999));
        assertSame(WorkCompletionStatus.UNKNOWN, WorkCompletionStatus.of(-3));
        assertEquals("remote access error", WorkCompletionStatus.REM_ACCESS_ERR.description());
        assertEquals("success", WorkCompletionStatus.SUCCESS.description());
        assertEquals("local length error", WorkCompletionStatus.LOC_LEN_ERR.description());
    }

    @Test
    void workCompletionOpcodes() {
        assertEquals(IBV_WC_SEND(), WorkCompletionOpcode.SEND.value());
        assertEquals(IBV_WC_RDMA_WRITE(), WorkCompletionOpcode.RDMA_WRITE.value());
        assertEquals(IBV_WC_RDMA_READ(), WorkCompletionOpcode.RDMA_READ.value());
        assertEquals(IBV_WC_COMP_SWAP(), WorkCompletionOpcode.COMP_SWAP.value());
        assertEquals(IBV_WC_FETCH_ADD(), WorkCompletionOpcode.FETCH_ADD.value());
        assertEquals(IBV_WC_BIND_MW(), WorkCompletionOpcode.BIND_MW.value());
        assertEquals(IBV_WC_LOCAL_INV(), WorkCompletionOpcode.LOCAL_INV.value());
        assertEquals(IBV_WC_TSO(), WorkCompletionOpcode.TSO.value());
        assertEquals(IBV_WC_RECV(), WorkCompletionOpcode.RECV.value());
        assertEquals(IBV_WC_RECV_RDMA_WITH_IMM(), WorkCompletionOpcode.RECV_RDMA_WITH_IMM.value());
        for (WorkCompletionOpcode o : WorkCompletionOpcode.values()) {
            if (o != WorkCompletionOpcode.UNKNOWN) {
                assertSame(o, WorkCompletionOpcode.of(o.value()));
            }
        }
        assertSame(WorkCompletionOpcode.UNKNOWN, WorkCompletionOpcode.of(77));
        assertTrue(WorkCompletionOpcode.RECV.isReceive());
    }

    @Test
    void sendOpcodes() {
        assertEquals(IBV_WR_RDMA_WRITE(), SendOpcode.RDMA_WRITE.value());
        assertEquals(IBV_WR_RDMA_WRITE_WITH_IMM(), SendOpcode.RDMA_WRITE_WITH_IMM.value());
        assertEquals(IBV_WR_SEND(), SendOpcode.SEND.value());
        assertEquals(IBV_WR_SEND_WITH_IMM(), SendOpcode.SEND_WITH_IMM.value());
        assertEquals(IBV_WR_RDMA_READ(), SendOpcode.RDMA_READ.value());
        assertEquals(IBV_WR_ATOMIC_CMP_AND_SWP(), SendOpcode.ATOMIC_CMP_AND_SWP.value());
        assertEquals(IBV_WR_ATOMIC_FETCH_AND_ADD(), SendOpcode.ATOMIC_FETCH_AND_ADD.value());
        assertEquals(IBV_WR_LOCAL_INV(), SendOpcode.LOCAL_INV.value());
        assertEquals(IBV_WR_BIND_MW(), SendOpcode.BIND_MW.value());
        assertEquals(IBV_WR_SEND_WITH_INV(), SendOpcode.SEND_WITH_INV.value());
        assertEquals(IBV_MW_TYPE_1(), MemoryWindowType.TYPE_1.value());
        assertEquals(IBV_MW_TYPE_2(), MemoryWindowType.TYPE_2.value());
    }

    @Test
    void queuePairTypesStatesAndAttributeBits() {
        assertEquals(IBV_QPT_RC(), QueuePairType.RC.value());
        assertEquals(IBV_QPT_UC(), QueuePairType.UC.value());
        assertEquals(IBV_QPT_UD(), QueuePairType.UD.value());
        assertEquals(IBV_QPS_RESET(), QueuePairState.RESET.value());
        assertEquals(IBV_QPS_INIT(), QueuePairState.INIT.value());
        assertEquals(IBV_QPS_RTR(), QueuePairState.RTR.value());
        assertEquals(IBV_QPS_RTS(), QueuePairState.RTS.value());
        assertEquals(IBV_QPS_SQD(), QueuePairState.SQD.value());
        assertEquals(IBV_QPS_SQE(), QueuePairState.SQE.value());
        assertEquals(IBV_QPS_ERR(), QueuePairState.ERR.value());
        assertEquals(IBV_QPS_UNKNOWN(), QueuePairState.UNKNOWN.value());
        Map<QpAttribute, Integer> bits = Map.ofEntries(
                Map.entry(QpAttribute.STATE, IBV_QP_STATE()), Map.entry(QpAttribute.CUR_STATE, IBV_QP_CUR_STATE()),
                Map.entry(QpAttribute.EN_SQD_ASYNC_NOTIFY, IBV_QP_EN_SQD_ASYNC_NOTIFY()),
                Map.entry(QpAttribute.ACCESS_FLAGS, IBV_QP_ACCESS_FLAGS()),
                Map.entry(QpAttribute.PKEY_INDEX, IBV_QP_PKEY_INDEX()), Map.entry(QpAttribute.PORT, IBV_QP_PORT()),
                Map.entry(QpAttribute.QKEY, IBV_QP_QKEY()), Map.entry(QpAttribute.AV, IBV_QP_AV()),
                Map.entry(QpAttribute.PATH_MTU, IBV_QP_PATH_MTU()), Map.entry(QpAttribute.TIMEOUT, IBV_QP_TIMEOUT()),
                Map.entry(QpAttribute.RETRY_CNT, IBV_QP_RETRY_CNT()), Map.entry(QpAttribute.RNR_RETRY, IBV_QP_RNR_RETRY()),
                Map.entry(QpAttribute.RQ_PSN, IBV_QP_RQ_PSN()),
                Map.entry(QpAttribute.MAX_QP_RD_ATOMIC, IBV_QP_MAX_QP_RD_ATOMIC()),
                Map.entry(QpAttribute.ALT_PATH, IBV_QP_ALT_PATH()),
                Map.entry(QpAttribute.MIN_RNR_TIMER, IBV_QP_MIN_RNR_TIMER()), Map.entry(QpAttribute.SQ_PSN, IBV_QP_SQ_PSN()),
                Map.entry(QpAttribute.MAX_DEST_RD_ATOMIC, IBV_QP_MAX_DEST_RD_ATOMIC()),
                Map.entry(QpAttribute.PATH_MIG_STATE, IBV_QP_PATH_MIG_STATE()), Map.entry(QpAttribute.CAP, IBV_QP_CAP()),
                Map.entry(QpAttribute.DEST_QPN, IBV_QP_DEST_QPN()), Map.entry(QpAttribute.RATE_LIMIT, IBV_QP_RATE_LIMIT()));
        assertEquals(QpAttribute.values().length, bits.size());
        bits.forEach((a, bit) -> assertEquals(bit, a.bit, a.name()));
    }

    @Test
    void asyncEventTypes() {
        assertEquals(IBV_EVENT_CQ_ERR(), AsyncEventType.CQ_ERR.ordinal());
        assertEquals(IBV_EVENT_QP_FATAL(), AsyncEventType.QP_FATAL.ordinal());
        assertEquals(IBV_EVENT_COMM_EST(), AsyncEventType.COMM_EST.ordinal());
        assertEquals(IBV_EVENT_DEVICE_FATAL(), AsyncEventType.DEVICE_FATAL.ordinal());
        assertEquals(IBV_EVENT_PORT_ACTIVE(), AsyncEventType.PORT_ACTIVE.ordinal());
        assertEquals(IBV_EVENT_PORT_ERR(), AsyncEventType.PORT_ERR.ordinal());
        assertEquals(IBV_EVENT_SRQ_LIMIT_REACHED(), AsyncEventType.SRQ_LIMIT_REACHED.ordinal());
        assertEquals(IBV_EVENT_QP_LAST_WQE_REACHED(), AsyncEventType.QP_LAST_WQE_REACHED.ordinal());
        assertEquals(IBV_EVENT_GID_CHANGE(), AsyncEventType.GID_CHANGE.ordinal());
        assertEquals(IBV_EVENT_WQ_FATAL(), AsyncEventType.WQ_FATAL.ordinal());
        assertSame(AsyncEventType.UNKNOWN, AsyncEventType.of(IBV_EVENT_WQ_FATAL() + 1));
        assertSame(AsyncEventType.PORT_ERR, AsyncEventType.of(IBV_EVENT_PORT_ERR()));
        assertEquals("port error", AsyncEventType.PORT_ERR.description());
    }

    @Test
    void deviceAndPortEnums() {
        assertEquals(IBV_NODE_CA(), NodeType.CA.value());
        assertEquals(IBV_NODE_RNIC(), NodeType.RNIC.value());
        assertEquals(IBV_NODE_UNSPECIFIED(), NodeType.UNSPECIFIED.value());
        assertSame(NodeType.UNKNOWN, NodeType.of(-1));
        assertSame(NodeType.UNKNOWN, NodeType.of(42));
        assertEquals(IBV_TRANSPORT_IB(), TransportType.IB.value());
        assertEquals(IBV_TRANSPORT_IWARP(), TransportType.IWARP.value());
        assertEquals(IBV_TRANSPORT_UNSPECIFIED(), TransportType.UNSPECIFIED.value());
        assertEquals(IBV_PORT_ACTIVE(), PortState.ACTIVE.value());
        assertEquals(IBV_PORT_DOWN(), PortState.DOWN.value());
        assertEquals(IBV_PORT_ACTIVE_DEFER(), PortState.ACTIVE_DEFER.value());
        assertEquals(IBV_LINK_LAYER_ETHERNET(), LinkLayer.ETHERNET.value());
        assertEquals(IBV_LINK_LAYER_INFINIBAND(), LinkLayer.INFINIBAND.value());
        assertEquals(IBV_GID_TYPE_ROCE_V2(), GidType.ROCE_V2.value());
        assertEquals(IBV_GID_TYPE_ROCE_V1(), GidType.ROCE_V1.value());
        assertEquals(IBV_GID_TYPE_IB(), GidType.IB.value());
        assertEquals(IBV_ATOMIC_NONE(), AtomicCapability.NONE.value());
        assertEquals(IBV_ATOMIC_HCA(), AtomicCapability.HCA.value());
        assertEquals(IBV_ATOMIC_GLOB(), AtomicCapability.GLOB.value());
        assertSame(AtomicCapability.HCA, AtomicCapability.of(IBV_ATOMIC_HCA()));
        assertSame(AtomicCapability.NONE, AtomicCapability.of(7));
        for (Mtu m : Mtu.values()) {
            assertSame(m, Mtu.of(m.value()));
            assertEquals(128 << m.value(), m.bytes());
        }
        assertThrows(IllegalArgumentException.class, () -> Mtu.of(0));
        assertThrows(IllegalArgumentException.class, () -> Mtu.of(6));
        assertEquals(IBV_MTU_256(), Mtu.MTU_256.value());
        assertEquals(IBV_MTU_4096(), Mtu.MTU_4096.value());
        assertEquals(1024, Mtu.of(IBV_MTU_1024()).bytes());
        assertSame(Mtu.MTU_1024, Mtu.MTU_4096.min(Mtu.MTU_1024));
    }
}
