// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The extended post and poll enums carry the C values of verbs.h (checked against the generated constants). */
class ExtendedConstantsTest {
    @Test
    void sendOpsAreTheSendOpsFlags() {
        Map<SendOp, Integer> c = Map.ofEntries(
                Map.entry(SendOp.RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE()),
                Map.entry(SendOp.RDMA_WRITE_WITH_IMM, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM()),
                Map.entry(SendOp.SEND, IBV_QP_EX_WITH_SEND()),
                Map.entry(SendOp.SEND_WITH_IMM, IBV_QP_EX_WITH_SEND_WITH_IMM()),
                Map.entry(SendOp.RDMA_READ, IBV_QP_EX_WITH_RDMA_READ()),
                Map.entry(SendOp.ATOMIC_CMP_AND_SWP, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP()),
                Map.entry(SendOp.ATOMIC_FETCH_AND_ADD, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD()),
                Map.entry(SendOp.LOCAL_INV, IBV_QP_EX_WITH_LOCAL_INV()),
                Map.entry(SendOp.BIND_MW, IBV_QP_EX_WITH_BIND_MW()),
                Map.entry(SendOp.SEND_WITH_INV, IBV_QP_EX_WITH_SEND_WITH_INV()),
                Map.entry(SendOp.TSO, IBV_QP_EX_WITH_TSO()),
                Map.entry(SendOp.ATOMIC_WRITE, IBV_QP_EX_WITH_ATOMIC_WRITE()));
        assertEquals(SendOp.values().length, c.size());
        c.forEach((op, bit) -> assertEquals(bit, op.bit(), op.name()));
        long flags = SendOp.flags(EnumSet.of(SendOp.SEND, SendOp.ATOMIC_WRITE));
        assertEquals(IBV_QP_EX_WITH_SEND() | IBV_QP_EX_WITH_ATOMIC_WRITE(), flags);
        assertEquals(EnumSet.of(SendOp.SEND, SendOp.ATOMIC_WRITE), SendOp.of(flags | (1L << 40)));
    }

    @Test
    void fieldsAreTheWcFlags() {
        Map<WorkCompletionField, Integer> c = Map.ofEntries(
                Map.entry(WorkCompletionField.BYTE_LEN, IBV_WC_EX_WITH_BYTE_LEN()),
                Map.entry(WorkCompletionField.IMMEDIATE, IBV_WC_EX_WITH_IMM()),
                Map.entry(WorkCompletionField.QP_NUMBER, IBV_WC_EX_WITH_QP_NUM()),
                Map.entry(WorkCompletionField.SOURCE_QP, IBV_WC_EX_WITH_SRC_QP()),
                Map.entry(WorkCompletionField.SLID, IBV_WC_EX_WITH_SLID()),
                Map.entry(WorkCompletionField.SL, IBV_WC_EX_WITH_SL()),
                Map.entry(WorkCompletionField.DLID_PATH_BITS, IBV_WC_EX_WITH_DLID_PATH_BITS()),
                Map.entry(WorkCompletionField.COMPLETION_TIMESTAMP, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP()),
                Map.entry(WorkCompletionField.CVLAN, IBV_WC_EX_WITH_CVLAN()),
                Map.entry(WorkCompletionField.FLOW_TAG, IBV_WC_EX_WITH_FLOW_TAG()),
                Map.entry(WorkCompletionField.TM_INFO, IBV_WC_EX_WITH_TM_INFO()),
                Map.entry(WorkCompletionField.COMPLETION_TIMESTAMP_WALLCLOCK,
                        IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK()));
        assertEquals(WorkCompletionField.values().length, c.size());
        c.forEach((field, bit) -> assertEquals(bit, field.bit(), field.name()));
        assertEquals(IBV_WC_STANDARD_FLAGS(), WorkCompletionField.flags(WorkCompletionField.STANDARD));
    }
}
