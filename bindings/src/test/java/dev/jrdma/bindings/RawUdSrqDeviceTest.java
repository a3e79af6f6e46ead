// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.ibv_qp_cap;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.ibv_srq_attr;
import dev.jrdma.bindings.generated.ibv_srq_init_attr;
import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.testing.DeviceTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * UD datagrams through an address handle, received on a shared receive queue: the shims
 * post_srq_recv and the errno-capturing create_ah/create_srq on a device. The RC loopback
 * supplies context, PD, MR, CQ and the RoCE v2 GID; the UD QPs are created here.
 */
@DeviceTest
class RawUdSrqDeviceTest {
    /** Any value works if both sides agree; perftest uses the same one. */
    private static final int QKEY = 0x11111111;
    /** A UD receive starts with the 40-byte GRH slot (filled on RoCE, where every packet is routed). */
    private static final int GRH_BYTES = 40;

    private RawRcLoopback rc;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment errno = Errno.allocate(arena);
    private final MemorySegment badWr = arena.allocate(ADDRESS);
    private MemorySegment srq = MemorySegment.NULL;
    private MemorySegment ah = MemorySegment.NULL;
    private final MemorySegment[] ud = {MemorySegment.NULL, MemorySegment.NULL};

    @BeforeEach
    void open() {
        rc = new RawRcLoopback(RawDevices.testDevice(), m -> { });
    }

    @AfterEach
    void close() {
        for (MemorySegment qp : ud) {
            RawRcLoopback.destroyCreated(qp, rdma_h::ibv_destroy_qp);
        }
        RawRcLoopback.destroyCreated(ah, rdma_h::ibv_destroy_ah);
        RawRcLoopback.destroyCreated(srq, rdma_h::ibv_destroy_srq);
        rc.close();
        arena.close();
    }

    @Test
    void datagramThroughAnAddressHandleLandsOnTheSharedReceiveQueue() {
        MemorySegment srqInit = arena.allocate(ibv_srq_init_attr.layout());
        ibv_srq_attr.max_wr(ibv_srq_init_attr.attr(srqInit), 8);
        ibv_srq_attr.max_sge(ibv_srq_init_attr.attr(srqInit), 1);
        srq = ErrnoVerbs.ibv_create_srq(errno, rc.pd, srqInit);
        assertTrue(srq.address() != 0, "ibv_create_srq: errno " + Errno.get(errno));

        ud[0] = udQp(MemorySegment.NULL);
        ud[1] = udQp(srq);

        MemorySegment ahAttr = arena.allocate(ibv_ah_attr.layout());
        ibv_ah_attr.is_global(ahAttr, (byte) 1);
        ibv_ah_attr.port_num(ahAttr, (byte) RawRcLoopback.PORT);
        MemorySegment grh = ibv_ah_attr.grh(ahAttr);
        ibv_global_route.dgid(grh, ibv_gid_entry.gid(rc.gidEntry));
        ibv_global_route.sgid_index(grh, (byte) ibv_gid_entry.gid_index(rc.gidEntry));
        ibv_global_route.hop_limit(grh, (byte) 1);
        ah = ErrnoVerbs.ibv_create_ah(errno, rc.pd, ahAttr);
        assertTrue(ah.address() != 0, "ibv_create_ah: errno " + Errno.get(errno));

        byte[] datagram = "a UD datagram".getBytes(StandardCharsets.US_ASCII);
        MemorySegment receive = rc.half(1).asSlice(0, GRH_BYTES + 256);
        MemorySegment sge = arena.allocate(ibv_sge.layout());
        ibv_sge.addr(sge, receive.address());
        ibv_sge.length(sge, (int) receive.byteSize());
        ibv_sge.lkey(sge, rc.lkey());
        MemorySegment recvWr = arena.allocate(ibv_recv_wr.layout());
        ibv_recv_wr.wr_id(recvWr, 31);
        ibv_recv_wr.sg_list(recvWr, sge);
        ibv_recv_wr.num_sge(recvWr, 1);
        RawRcLoopback.check(InlineVerbs.ibv_post_srq_recv(srq, recvWr, badWr), "ibv_post_srq_recv");

        MemorySegment payload = rc.half(0).asSlice(0, datagram.length);
        payload.copyFrom(MemorySegment.ofArray(datagram));
        MemorySegment sendSge = arena.allocate(ibv_sge.layout());
        ibv_sge.addr(sendSge, payload.address());
        ibv_sge.length(sendSge, datagram.length);
        ibv_sge.lkey(sendSge, rc.lkey());
        MemorySegment sendWr = arena.allocate(ibv_send_wr.layout());
        ibv_send_wr.wr_id(sendWr, 32);
        ibv_send_wr.sg_list(sendWr, sendSge);
        ibv_send_wr.num_sge(sendWr, 1);
        ibv_send_wr.opcode(sendWr, IBV_WR_SEND());
        ibv_send_wr.send_flags(sendWr, IBV_SEND_SIGNALED());
        MemorySegment udWr = ibv_send_wr.wr.ud(ibv_send_wr.wr(sendWr));
        ibv_send_wr.wr.ud.ah(udWr, ah);
        ibv_send_wr.wr.ud.remote_qpn(udWr, ibv_qp.qp_num(ud[1]));
        ibv_send_wr.wr.ud.remote_qkey(udWr, QKEY);
        RawRcLoopback.check(InlineVerbs.ibv_post_send(ud[0], sendWr, badWr), "ibv_post_send(UD)");

        boolean received = false;
        for (int i = 0; i < 2; i++) {
            MemorySegment wc = rc.pollSuccess();
            if (ibv_wc.wr_id(wc) == 31) {
                assertEquals(IBV_WC_RECV(), ibv_wc.opcode(wc));
                assertEquals(GRH_BYTES + datagram.length, ibv_wc.byte_len(wc), "byte_len counts the GRH");
                assertEquals(ibv_qp.qp_num(ud[0]), ibv_wc.src_qp(wc));
                assertTrue((ibv_wc.wc_flags(wc) & IBV_WC_GRH()) != 0, "RoCE datagrams carry a GRH");
                received = true;
            }
        }
        assertTrue(received);
        assertArrayEquals(datagram, receive.asSlice(GRH_BYTES, datagram.length).toArray(JAVA_BYTE));
    }

    /** A UD QP in RTS; with {@code sharedRq} its receives come from that SRQ. */
    private MemorySegment udQp(MemorySegment sharedRq) {
        MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
        ibv_qp_init_attr.send_cq(init, rc.cq);
        ibv_qp_init_attr.recv_cq(init, rc.cq);
        ibv_qp_init_attr.srq(init, sharedRq);
        ibv_qp_init_attr.qp_type(init, IBV_QPT_UD());
        MemorySegment cap = ibv_qp_init_attr.cap(init);
        ibv_qp_cap.max_send_wr(cap, 4);
        ibv_qp_cap.max_recv_wr(cap, sharedRq.address() == 0 ? 4 : 0);
        ibv_qp_cap.max_send_sge(cap, 1);
        ibv_qp_cap.max_recv_sge(cap, 1);
        MemorySegment qp = ErrnoVerbs.ibv_create_qp(errno, rc.pd, init);
        assertTrue(qp.address() != 0, "ibv_create_qp(UD): errno " + Errno.get(errno));
        qp = qp.reinterpret(ibv_qp.layout().byteSize());

        // UD has no connection: INIT takes the qkey, RTR and RTS need no peer attributes.
        MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
        ibv_qp_attr.qp_state(attr, IBV_QPS_INIT());
        ibv_qp_attr.port_num(attr, (byte) RawRcLoopback.PORT);
        ibv_qp_attr.qkey(attr, QKEY);
        RawRcLoopback.check(ibv_modify_qp(qp, attr, IBV_QP_STATE() | IBV_QP_PKEY_INDEX() | IBV_QP_PORT()
                | IBV_QP_QKEY()), "ibv_modify_qp(UD INIT)");
        attr.fill((byte) 0);
        ibv_qp_attr.qp_state(attr, IBV_QPS_RTR());
        RawRcLoopback.check(ibv_modify_qp(qp, attr, IBV_QP_STATE()), "ibv_modify_qp(UD RTR)");
        attr.fill((byte) 0);
        ibv_qp_attr.qp_state(attr, IBV_QPS_RTS());
        ibv_qp_attr.sq_psn(attr, 0);
        RawRcLoopback.check(ibv_modify_qp(qp, attr, IBV_QP_STATE() | IBV_QP_SQ_PSN()), "ibv_modify_qp(UD RTS)");
        return qp;
    }
}
