// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The extended completion queue: the raw poll loop, its field readers, refusals, resizing. */
@DeviceTest
@EveryKernel
class ExtendedCompletionQueueDeviceTest extends DeviceFixture {

    /**
     * The raw loop over sends and receives reads every standard field, and ends each poll so
     * that nothing is left behind: after the last next_poll that finds nothing and the end_poll
     * that must follow it, start_poll finds the queue empty. On librxe before rdma-core 55 that
     * end_poll (after next_poll's ENOENT) overran the consumer index and the next start_poll
     * returned an entry never written; the queue detects that provider and skips it.
     */
    @Test
    @Exercises({"ibv_start_poll", "ibv_next_poll", "ibv_end_poll", "ibv_wc_read_opcode", "ibv_wc_read_vendor_err",
        "ibv_wc_read_byte_len", "ibv_wc_read_imm_data", "ibv_wc_read_invalidated_rkey", "ibv_wc_read_qp_num",
        "ibv_wc_read_src_qp", "ibv_wc_read_wc_flags", "ibv_wc_read_slid", "ibv_wc_read_sl",
        "ibv_wc_read_dlid_path_bits"})
    void rawLoopReadsEveryStandardFieldAndLeavesNothingBehind() {
        context.close();
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.UD, SendOp.SEND, SendOp.SEND_WITH_IMM)) {
            AddressHandle ah = lo.pd.createAddressHandle(lo.endpointB, TestDevices.PORT,
                    TestDevices.gid(lo.context).index());
            int qkey = ConnectionOptions.DEFAULTS.qkey();
            lo.b.post(new ReceiveRequest().wrId(101).sge(lo.memB, 0, 40 + 64));
            lo.b.post(new ReceiveRequest().wrId(102).sge(lo.memB, 1024, 40 + 64));
            try (var batch = lo.sa.start()) {
                batch.wrId(1).signaled(true).send().sge(lo.memA, 0, 12).udAddress(ah, lo.endpointB.qpn(), qkey);
                batch.wrId(2).sendWithImmediate(0x0102_0304).sge(lo.memA, 0, 20).udAddress(ah, lo.endpointB.qpn(), qkey);
                batch.complete();
            }
            ExtendedCompletionQueue cq = lo.cq;
            Map<Long, String> seen = new HashMap<>();
            long deadline = System.nanoTime() + TestDevices.TIMEOUT.toNanos();
            while (seen.size() < 4 && System.nanoTime() - deadline < 0) {
                if (!cq.startPoll()) {
                    continue;
                }
                try {
                    do {
                        assertEquals(WorkCompletionStatus.SUCCESS, cq.status());
                        assertEquals(0, cq.vendorError());
                        assertEquals(0, cq.sourceLid());
                        assertEquals(0, cq.serviceLevel());
                        assertEquals(0, cq.dlidPathBits());
                        long id = cq.wrId();
                        boolean imm = (cq.completionFlags() & 2) != 0;
                        String what = cq.opcode() + "/" + cq.byteLength() + "/" + Integer.toHexString(cq.qpNumber())
                                + (cq.opcode().isReceive() ? "/src " + Integer.toHexString(cq.sourceQpNumber()) : "")
                                + (imm ? "/imm " + Integer.toHexString(cq.immediateData()) : "");
                        if (imm) {
                            assertEquals(Integer.reverseBytes(cq.immediateData()), cq.invalidatedRkey(),
                                    "invalidated_rkey reads the same union, unswapped");
                        }
                        seen.put(id, what);
                    } while (cq.nextPoll());
                } finally {
                    cq.endPoll();
                }
            }
            String a = Integer.toHexString(lo.a.qpNumber());
            String b = Integer.toHexString(lo.b.qpNumber());
            // rxe flags the sender's SEND_WITH_IMM completion WITH_IMM but leaves its imm_data 0.
            assertEquals(Map.of(1L, "SEND/12/" + a, 2L, "SEND/20/" + a + "/imm 0",
                    101L, "RECV/52/" + b + "/src " + a, 102L, "RECV/60/" + b + "/src " + a + "/imm 1020304"), seen);
            assertFalse(cq.startPoll(), "a completion left behind or a phantom entry after the last end_poll");
            assertThrows(IllegalStateException.class, cq::wrId, "no poll open");
            assertThrows(IllegalStateException.class, cq::endPoll);
        }
    }

    @Test
    @Exercises(value = {"ibv_wc_read_completion_ts", "ibv_wc_read_completion_wallclock_ns", "ibv_wc_read_cvlan",
        "ibv_wc_read_flow_tag", "ibv_wc_read_tm_info"}, refused = "librxe 44's create_cq_ex accepts only the seven"
            + " standard wc flags and answers EOPNOTSUPP to completion timestamps, CVLAN, flow tag and TM info")
    void timestampsAndOtherNonStandardFieldsAreRefused() {
        for (WorkCompletionField field : EnumSet.complementOf(EnumSet.copyOf(WorkCompletionField.STANDARD))) {
            OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class,
                    () -> context.extendedCompletionQueue(8).fields(Set.of(field)).build(), field.toString());
            assertEquals(Verb.IBV_CREATE_CQ_EX, e.verb());
            assertTrue(e.getMessage().contains(field.toString()) && e.getMessage().contains(context.name()),
                    e.getMessage());
        }
        assertEquals(0, context.queryDevice().completionTimestampMask(), "rxe reports no completion clock");
        try (ExtendedCompletionQueue cq = context.extendedCompletionQueue(8).fields(Set.of(WorkCompletionField.BYTE_LEN))
                .build()) {
            assertEquals(Set.of(WorkCompletionField.BYTE_LEN), cq.fields());
            assertFalse(cq.startPoll());
            assertThrows(IllegalStateException.class, cq::completionTimestamp, "no poll open");
        }
    }

    @Test
    @Exercises(value = "ibv_modify_cq", refused = "librxe 44 has no modify_cq op (no completion moderation):"
            + " ibv_modify_cq answers EOPNOTSUPP")
    void moderationIsRefused() {
        assertEquals(0, context.queryDevice().maxCqModerationCount(), "rxe reports no moderation, so asking first says no");
        try (ExtendedCompletionQueue cq = context.extendedCompletionQueue(8).build()) {
            OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class,
                    () -> cq.moderate(4, 10));
            assertEquals(Verb.IBV_MODIFY_CQ, e.verb());
            assertThrows(OperationNotSupportedException.class,
                    () -> context.createCompletionQueue(8).moderate(4, 10));
        }
    }

    @Test
    @Exercises("ibv_resize_cq")
    void resizeGrowsTheQueueAndItStillWorks() {
        CompletionQueue classic = context.createCompletionQueue(8);
        int before = classic.capacity();
        classic.resize(200);
        assertTrue(classic.capacity() >= 200 && classic.capacity() > before, classic.capacity() + " after 200");
        context.close();
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.SEND)) {
            lo.cq.resize(300);
            assertTrue(lo.cq.capacity() >= 300, String.valueOf(lo.cq.capacity()));
            assertEquals(lo.cq.capacity(), lo.cq.asCompletionQueue().capacity());
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 64));
            lo.sa.start().wrId(1).signaled(true).send().sge(lo.memA, 0, 10).complete();
            assertEquals(10, ExtendedLoopback.byId(lo.take(2), 100).byteLength());
        }
    }

    @Test
    @Exercises({"ibv_cq_ex_to_cq", "ibv_create_cq_ex"})
    void theExtendedQueueIsACompletionQueue() {
        context.close();
        try (ExtendedLoopback lo = new ExtendedLoopback(QueuePairType.RC, SendOp.SEND)) {
            lo.b.post(new ReceiveRequest().wrId(100).sge(lo.memB, 0, 64));
            lo.sa.start().wrId(1).signaled(true).send().sge(lo.memA, 0, 10).complete();
            WorkCompletion wc = new WorkCompletion();
            CompletionQueue classic = lo.cq.asCompletionQueue();
            Map<Long, Integer> lengths = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                classic.take(wc, TestDevices.TIMEOUT).checkSuccess();
                lengths.put(wc.wrId(), wc.byteLength());
            }
            assertEquals(10, lengths.get(100L), "ibv_poll_cq reads the same queue");
            assertEquals(2, lengths.size());
            classic.close();
            assertTrue(lo.cq.isClosed());
            assertTrue(lo.a.isClosed(), "closing the queue closes the queue pairs on it first");
            assertThrows(IllegalStateException.class, () -> lo.cq.poll(lo.batch));
            assertThrows(IllegalStateException.class, lo.cq::startPoll);
        }
    }
}
