// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_comp_channel;
import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.ibv_port_attr;
import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.ibv_qp_cap;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.VerbsContextOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Two RC queue pairs on one device, connected to each other through the device's RoCE v2
 * IPv4 GID, written against the raw bindings and shims only (the way a C program would).
 * Each QP owns half of one registered buffer. Used by the raw device tests and the demo.
 */
final class RawRcLoopback implements AutoCloseable {
    static final int PORT = 1;
    static final long HALF = 4096;
    /** Under TCG emulation a round trip can take milliseconds; this bounds every completion wait. */
    static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(20);

    final Arena arena = Arena.ofConfined();
    final MemorySegment errno = Errno.allocate(arena);
    final String deviceName;
    final Consumer<String> log;
    MemorySegment deviceList = MemorySegment.NULL;
    MemorySegment context = MemorySegment.NULL;
    MemorySegment pd = MemorySegment.NULL;
    MemorySegment cq = MemorySegment.NULL;
    MemorySegment channel = MemorySegment.NULL;
    private final boolean withChannel;
    MemorySegment mr = MemorySegment.NULL;
    final MemorySegment[] qps = {MemorySegment.NULL, MemorySegment.NULL};
    final MemorySegment buffer;
    final MemorySegment portAttr = arena.allocate(ibv_port_attr.layout());
    final MemorySegment gidEntry = arena.allocate(ibv_gid_entry.layout());
    final MemorySegment wc = arena.allocate(ibv_wc.layout());
    private final MemorySegment sendWr = arena.allocate(ibv_send_wr.layout());
    private final MemorySegment recvWr = arena.allocate(ibv_recv_wr.layout());
    private final MemorySegment sge = arena.allocate(ibv_sge.layout());
    private final MemorySegment badWr = arena.allocate(ADDRESS);

    RawRcLoopback(String deviceName, Consumer<String> log) {
        this(deviceName, false, log);
    }

    /** With {@code withChannel}, the CQ reports to a completion channel ({@link #channel}). */
    RawRcLoopback(String deviceName, boolean withChannel, Consumer<String> log) {
        this.deviceName = deviceName;
        this.withChannel = withChannel;
        this.log = log;
        // Page-aligned: registration pins whole pages either way, and RDMA READ/WRITE targets
        // are then naturally aligned for atomics too.
        buffer = arena.allocate(2 * HALF, 4096);
        try {
            open();
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private void open() {
        MemorySegment num = arena.allocate(JAVA_INT);
        deviceList = ErrnoVerbs.ibv_get_device_list(errno, num);
        require(deviceList.address() != 0, "ibv_get_device_list");
        MemorySegment list = deviceList.reinterpret(ADDRESS.byteSize() * num.get(JAVA_INT, 0));
        MemorySegment device = MemorySegment.NULL;
        for (int i = 0; i < num.get(JAVA_INT, 0); i++) {
            MemorySegment d = list.getAtIndex(ADDRESS, i);
            if (ibv_get_device_name(d).getString(0).equals(deviceName)) {
                device = d;
            }
        }
        if (device.address() == 0) {
            throw new IllegalArgumentException("no device " + deviceName);
        }
        context = ErrnoVerbs.ibv_open_device(errno, device);
        require(context.address() != 0, "ibv_open_device(" + deviceName + ")");
        log.accept("opened " + deviceName);
        check(VerbsContextOps.ibv_query_port(context, PORT, portAttr), "ibv_query_port");
        int gidIndex = RawDevices.roceV2Ipv4Gid(context, PORT, ibv_port_attr.gid_tbl_len(portAttr), gidEntry);
        if (gidIndex < 0) {
            throw new AssertionError("no RoCE v2 IPv4-mapped GID on " + deviceName + " port " + PORT);
        }
        log.accept("port " + PORT + ": state " + ibv_port_attr.state(portAttr) + ", active MTU enum "
                + ibv_port_attr.active_mtu(portAttr) + ", RoCE v2 IPv4 GID index " + gidIndex);

        pd = ErrnoVerbs.ibv_alloc_pd(errno, context);
        require(pd.address() != 0, "ibv_alloc_pd");
        int access = IBV_ACCESS_LOCAL_WRITE() | IBV_ACCESS_REMOTE_WRITE() | IBV_ACCESS_REMOTE_READ()
                | IBV_ACCESS_REMOTE_ATOMIC() | IBV_ACCESS_MW_BIND();
        mr = ErrnoVerbs.ibv_reg_mr_iova2(errno, pd, buffer, buffer.byteSize(), buffer.address(), access);
        require(mr.address() != 0, "ibv_reg_mr_iova2");
        mr = mr.reinterpret(ibv_mr.layout().byteSize());
        log.accept("registered " + buffer.byteSize() + " bytes: lkey 0x" + Integer.toHexString(lkey())
                + " rkey 0x" + Integer.toHexString(rkey()));
        if (withChannel) {
            channel = ErrnoVerbs.ibv_create_comp_channel(errno, context);
            require(channel.address() != 0, "ibv_create_comp_channel");
            channel = channel.reinterpret(ibv_comp_channel.layout().byteSize());
        }
        cq = ErrnoVerbs.ibv_create_cq(errno, context, 16, MemorySegment.NULL, channel, 0);
        require(cq.address() != 0, "ibv_create_cq");

        MemorySegment init = rcInitAttributes(arena, cq, 8);
        for (int i = 0; i < 2; i++) {
            qps[i] = ErrnoVerbs.ibv_create_qp(errno, pd, init);
            require(qps[i].address() != 0, "ibv_create_qp");
            qps[i] = qps[i].reinterpret(ibv_qp.layout().byteSize());
        }
        for (int i = 0; i < 2; i++) {
            connect(qps[i], ibv_qp.qp_num(qps[1 - i]), gidIndex);
        }
        log.accept("RC QPs 0x" + Integer.toHexString(qpn(0)) + " <-> 0x" + Integer.toHexString(qpn(1))
                + " are in RTS");
    }

    private void connect(MemorySegment qp, int remoteQpn, int gidIndex) {
        MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
        ibv_qp_attr.qp_state(attr, IBV_QPS_INIT());
        ibv_qp_attr.pkey_index(attr, (short) 0);
        ibv_qp_attr.port_num(attr, (byte) PORT);
        ibv_qp_attr.qp_access_flags(attr,
                IBV_ACCESS_LOCAL_WRITE() | IBV_ACCESS_REMOTE_WRITE() | IBV_ACCESS_REMOTE_READ()
                        | IBV_ACCESS_REMOTE_ATOMIC() | IBV_ACCESS_MW_BIND());
        check(ibv_modify_qp(qp, attr,
                IBV_QP_STATE() | IBV_QP_PKEY_INDEX() | IBV_QP_PORT() | IBV_QP_ACCESS_FLAGS()), "ibv_modify_qp(INIT)");

        attr.fill((byte) 0);
        ibv_qp_attr.qp_state(attr, IBV_QPS_RTR());
        ibv_qp_attr.path_mtu(attr, ibv_port_attr.active_mtu(portAttr));
        ibv_qp_attr.dest_qp_num(attr, remoteQpn);
        ibv_qp_attr.rq_psn(attr, 0);
        ibv_qp_attr.max_dest_rd_atomic(attr, (byte) 1);
        ibv_qp_attr.min_rnr_timer(attr, (byte) 12);
        MemorySegment ah = ibv_qp_attr.ah_attr(attr);
        // RoCE has no LIDs: the route is the GRH, so is_global=1 with the peer's GID. Both QPs
        // live on the same port here, so the destination GID is our own.
        ibv_ah_attr.is_global(ah, (byte) 1);
        ibv_ah_attr.port_num(ah, (byte) PORT);
        MemorySegment grh = ibv_ah_attr.grh(ah);
        ibv_global_route.dgid(grh, ibv_gid_entry.gid(gidEntry));
        ibv_global_route.sgid_index(grh, (byte) gidIndex);
        ibv_global_route.hop_limit(grh, (byte) 1);
        check(ibv_modify_qp(qp, attr, IBV_QP_STATE() | IBV_QP_AV() | IBV_QP_PATH_MTU() | IBV_QP_DEST_QPN()
                | IBV_QP_RQ_PSN() | IBV_QP_MAX_DEST_RD_ATOMIC() | IBV_QP_MIN_RNR_TIMER()), "ibv_modify_qp(RTR)");

        attr.fill((byte) 0);
        ibv_qp_attr.qp_state(attr, IBV_QPS_RTS());
        ibv_qp_attr.timeout(attr, (byte) 14);
        ibv_qp_attr.retry_cnt(attr, (byte) 7);
        ibv_qp_attr.rnr_retry(attr, (byte) 7);
        ibv_qp_attr.sq_psn(attr, 0);
        ibv_qp_attr.max_rd_atomic(attr, (byte) 1);
        check(ibv_modify_qp(qp, attr, IBV_QP_STATE() | IBV_QP_TIMEOUT() | IBV_QP_RETRY_CNT()
                | IBV_QP_RNR_RETRY() | IBV_QP_SQ_PSN() | IBV_QP_MAX_QP_RD_ATOMIC()), "ibv_modify_qp(RTS)");
    }

    int qpn(int i) {
        return ibv_qp.qp_num(qps[i]);
    }

    int lkey() {
        return ibv_mr.lkey(mr);
    }

    int rkey() {
        return ibv_mr.rkey(mr);
    }

    /** The half of the buffer QP {@code i} uses. */
    MemorySegment half(int i) {
        return buffer.asSlice(i * HALF, HALF);
    }

    void postRecv(int qp, long wrId, MemorySegment target, int lkey) {
        sge(target, (int) target.byteSize(), lkey);
        recvWr.fill((byte) 0);
        ibv_recv_wr.wr_id(recvWr, wrId);
        ibv_recv_wr.sg_list(recvWr, sge);
        ibv_recv_wr.num_sge(recvWr, 1);
        check(InlineVerbs.ibv_post_recv(qps[qp], recvWr, badWr), "ibv_post_recv");
    }

    /** Posts one signalled work request with one SGE; remoteAddr/rkey are used by RDMA opcodes. */
    void postSend(int qp, long wrId, int opcode, MemorySegment local, int lkey, long remoteAddr, int rkey) {
        sge(local, (int) local.byteSize(), lkey);
        signalledSend(wrId, opcode);
        MemorySegment rdma = ibv_send_wr.wr.rdma(ibv_send_wr.wr(sendWr));
        ibv_send_wr.wr.rdma.remote_addr(rdma, remoteAddr);
        ibv_send_wr.wr.rdma.rkey(rdma, rkey);
        check(InlineVerbs.ibv_post_send(qps[qp], sendWr, badWr), "ibv_post_send");
    }

    /** Posts one signalled 8-byte atomic: fetch-and-add ({@code swap} unused) or compare-and-swap. */
    void postAtomic(int qp, long wrId, int opcode, MemorySegment result, long remoteAddr, long compareAdd, long swap) {
        sge(result, 8, lkey());
        signalledSend(wrId, opcode);
        MemorySegment atomic = ibv_send_wr.wr.atomic(ibv_send_wr.wr(sendWr));
        ibv_send_wr.wr.atomic.remote_addr(atomic, remoteAddr);
        ibv_send_wr.wr.atomic.compare_add(atomic, compareAdd);
        ibv_send_wr.wr.atomic.swap(atomic, swap);
        ibv_send_wr.wr.atomic.rkey(atomic, rkey());
        check(InlineVerbs.ibv_post_send(qps[qp], sendWr, badWr), "ibv_post_send(atomic)");
    }

    /** {@code struct ibv_qp_init_attr} of an RC queue pair on {@code cq}: {@code depth} WRs and one SGE each way. */
    static MemorySegment rcInitAttributes(Arena arena, MemorySegment cq, int depth) {
        MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
        ibv_qp_init_attr.send_cq(init, cq);
        ibv_qp_init_attr.recv_cq(init, cq);
        ibv_qp_init_attr.qp_type(init, IBV_QPT_RC());
        MemorySegment cap = ibv_qp_init_attr.cap(init);
        ibv_qp_cap.max_send_wr(cap, depth);
        ibv_qp_cap.max_recv_wr(cap, depth);
        ibv_qp_cap.max_send_sge(cap, 1);
        ibv_qp_cap.max_recv_sge(cap, 1);
        return init;
    }

    /** Points the one SGE at the first {@code length} bytes of {@code memory}. */
    private void sge(MemorySegment memory, int length, int lkey) {
        ibv_sge.addr(sge, memory.address());
        ibv_sge.length(sge, length);
        ibv_sge.lkey(sge, lkey);
    }

    /** Clears the send WR and writes what every send here has: wr_id, the one SGE, opcode, signalled. */
    private void signalledSend(long wrId, int opcode) {
        sendWr.fill((byte) 0);
        ibv_send_wr.wr_id(sendWr, wrId);
        ibv_send_wr.sg_list(sendWr, sge);
        ibv_send_wr.num_sge(sendWr, 1);
        ibv_send_wr.opcode(sendWr, opcode);
        ibv_send_wr.send_flags(sendWr, IBV_SEND_SIGNALED());
    }

    /** Polls the CQ until one completion arrives (left in {@link #wc}) or the timeout passes. */
    MemorySegment pollOne() {
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
        while (true) {
            int n = InlineVerbs.ibv_poll_cq(cq, 1, wc);
            if (n < 0) {
                throw new IllegalStateException("ibv_poll_cq returned " + n);
            }
            if (n == 1) {
                return wc;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within " + COMPLETION_TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }

    /** Polls one completion, as {@link #pollOne}, and asserts that it succeeded (naming the status if not). */
    MemorySegment pollSuccess() {
        MemorySegment wc = pollOne();
        assertEquals(IBV_WC_SUCCESS(), ibv_wc.status(wc), statusText(ibv_wc.status(wc)));
        return wc;
    }

    static String statusText(int status) {
        return ibv_wc_status_str(status).getString(0);
    }

    private void require(boolean ok, String verb) {
        if (!ok) {
            throw new IllegalStateException(verb + " failed: errno " + Errno.get(errno));
        }
    }

    static void check(int rc, String verb) {
        if (rc != 0) {
            throw new IllegalStateException(verb + " failed: errno " + rc);
        }
    }

    /** Destroys a native object with {@code destroy}, unless it is NULL (never created). */
    static void destroyCreated(MemorySegment object, Consumer<MemorySegment> destroy) {
        if (object.address() != 0) {
            destroy.accept(object);
        }
    }

    @Override
    public void close() {
        // Children before parents, as the verbs require (destroying a PD with live MRs/QPs is EBUSY).
        for (int i = 0; i < 2; i++) {
            destroyCreated(qps[i], rdma_h::ibv_destroy_qp);
            qps[i] = MemorySegment.NULL;
        }
        destroyCreated(cq, rdma_h::ibv_destroy_cq);
        destroyCreated(channel, rdma_h::ibv_destroy_comp_channel);
        destroyCreated(mr, rdma_h::ibv_dereg_mr);
        destroyCreated(pd, rdma_h::ibv_dealloc_pd);
        destroyCreated(context, rdma_h::ibv_close_device);
        destroyCreated(deviceList, rdma_h::ibv_free_device_list);
        cq = channel = mr = pd = context = deviceList = MemorySegment.NULL;
        arena.close();
    }
}
