// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.Refusals.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_rwq_ind_table_init_attr;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SteeringVerbs;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Flow steering, counters, work queues and RSS, ECE and QP rate limits: all refused by rxe. */
@DeviceTest
@EveryKernel
class SteeringDeviceTest {
    @Test
    @Exercises(value = {"ibv_create_flow", "ibv_destroy_flow", "ibv_create_flow_action_esp",
            "ibv_modify_flow_action_esp", "ibv_destroy_flow_action", "ibv_create_counters", "ibv_destroy_counters",
            "ibv_attach_counters_point_flow", "ibv_read_counters"},
            refused = "rxe steers nothing (raw_packet_caps 0): librxe 44 leaves ibv_create_flow, create_flow_action_esp"
                    + " and create_counters to libibverbs' EOPNOTSUPP stubs, so there is no flow, action or counter"
                    + " to modify, attach, read or destroy")
    void flowsFlowActionsAndCountersAreRefused() {
        try (Loopback lo = new Loopback()) {
            assertEquals(0, lo.context.queryDevice().rawPacketCapabilities());
            byte[] mac = {0x02, 0, 0, 0, 0, 1};
            assertRefused(() -> Flow.create(lo.a, new Flow.Rule(TestDevices.PORT, 0, mac, 0x0800)), Verb.IBV_CREATE_FLOW,
                    lo.context, "flow steering");
            assertRefused(() -> lo.context.createEspFlowAction(new EspFlowAction.Esp(0x100, 0, 0)),
                    Verb.IBV_CREATE_FLOW_ACTION_ESP, lo.context, "ESP flow actions");
            assertRefused(lo.context::createCounters, Verb.IBV_CREATE_COUNTERS, lo.context, "counters");
            assertTrue(lo.a.dependents().isEmpty());
        }
    }

    @Test
    @Exercises({"ibv_flow_label_to_udp_sport"})
    void aFlowLabelFoldsIntoTheRoceV2UdpSourcePort() {
        // The same folding as the kernel's rdma_flow_label_to_udp_sport, by hand: 14 low bits xor
        // the 6 high bits, in the dynamic port range from 0xC000.
        assertEquals(0xC000, Flow.udpSourcePort(0));
        assertEquals(0xE341, Flow.udpSourcePort(0x12345));   // 0x2345 ^ (0x10000 >> 14)
        assertEquals(0xFFC0, Flow.udpSourcePort(0xFFFFF));   // 0x3FFF ^ 0x3F
        assertEquals(Flow.udpSourcePort(0x12345), Flow.udpSourcePort(0xF12345), "only 20 bits count");
        for (int label = 0; label < (1 << 20); label += 4099) {
            int port = Flow.udpSourcePort(label);
            assertTrue(port >= 0xC000 && port <= 0xFFFF, label + " -> " + port);
        }
    }

    @Test
    @Exercises(value = {"ibv_create_wq", "ibv_modify_wq", "ibv_destroy_wq", "ibv_post_wq_recv",
            "ibv_create_rwq_ind_table", "ibv_destroy_rwq_ind_table"},
            refused = "rxe has no receive work queues or RSS (max_wq_type_rq 0): librxe 44 leaves create_wq and"
                    + " create_rwq_ind_table to libibverbs' EOPNOTSUPP stubs")
    void workQueuesAndIndirectionTablesAreRefused() {
        try (Context context = TestDevices.device().open()) {
            assertFalse(context.queryDevice().rss().supported(), "rxe reports no RSS");
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(16);
            assertRefused(() -> context.createWorkQueue(pd, cq, 4, 1), Verb.IBV_CREATE_WQ, context, "work queues");
            // An indirection table needs work queues; the provider's op answers before reading them,
            // which is safe to show with an empty table only because it is libibverbs' stub.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment init = arena.allocate(ibv_rwq_ind_table_init_attr.layout());
                MemorySegment errno = Errno.allocate(arena);
                assertEquals(0, SteeringVerbs.ibv_create_rwq_ind_table(errno, context.handle(), init).address());
                assertEquals(Errno.EOPNOTSUPP, Errno.get(errno));
            }
            assertTrue(pd.dependents().isEmpty() && cq.dependents().isEmpty());
        }
    }

    @Test
    @Exercises(value = {"ibv_query_ece", "ibv_set_ece", "ibv_modify_qp_rate_limit"},
            refused = "rxe negotiates no ECE options and paces no packets (packet_pacing_caps 0): librxe 44 leaves"
                    + " query_ece, set_ece and modify_qp_rate_limit to libibverbs' EOPNOTSUPP stubs")
    void eceAndRateLimitsAreRefused() {
        try (Loopback lo = new Loopback()) {
            assertFalse(lo.context.queryDevice().packetPacing().supported(), "rxe reports no packet pacing");
            assertRefused(() -> Ece.query(lo.a), Verb.IBV_QUERY_ECE, lo.context, "enhanced connection establishment");
            assertRefused(() -> new Ece(0x02c9, 1).applyTo(lo.a), Verb.IBV_SET_ECE, lo.context,
                    "enhanced connection establishment");
            assertRefused(() -> new RateLimit(1000, 0, 0).applyTo(lo.a), Verb.IBV_MODIFY_QP_RATE_LIMIT, lo.context,
                    "QP rate limits");
            assertEquals(QueuePairState.RTS, lo.a.state(), "the refused calls left the QP as it was");
        }
    }
}
