// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.generated.in_addr;
import dev.jrdma.bindings.generated.rdma_cm_event;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_conn_param;
import dev.jrdma.bindings.generated.rdma_event_channel;
import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.sockaddr_in;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.testing.DeviceTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * rdma_cm on the raw bindings: a listener and a client in one thread, each with its own
 * event channel, connect over the test device's IPv4 address with private data, then the
 * server SENDs on the connected QP and the client receives it. Every event wait is bounded.
 */
@DeviceTest
class RawRdmaCmDeviceTest {
    private static final long EVENT_TIMEOUT_MS = 20_000;
    private static final int RESOLVE_TIMEOUT_MS = 5_000;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment errno = Errno.allocate(arena);
    /** Cleanup in reverse order of creation, run even when an assertion fails half-way. */
    private final Deque<Runnable> cleanup = new ArrayDeque<>();

    @AfterEach
    void tearDown() {
        while (!cleanup.isEmpty()) {
            cleanup.pop().run();
        }
        arena.close();
    }

    @Test
    void connectsWithPrivateDataAndCarriesASend() {
        Inet4Address ip = RawDevices.ipv4Address(RawDevices.testDevice());

        MemorySegment serverChannel = channel();
        MemorySegment listenId = createId(serverChannel);
        check(RdmaCmVerbs.rdma_bind_addr(errno, listenId, sockaddr(ip, 0)), "rdma_bind_addr(" + ip + ")");
        check(RdmaCmVerbs.rdma_listen(errno, listenId, 1), "rdma_listen");
        int port = Short.toUnsignedInt(Short.reverseBytes(rdma_get_src_port(listenId)));
        assertTrue(port > 0, "bound to an ephemeral port");

        MemorySegment clientChannel = channel();
        MemorySegment clientId = createId(clientChannel);
        check(RdmaCmVerbs.rdma_resolve_addr(errno, clientId, MemorySegment.NULL, sockaddr(ip, port),
                RESOLVE_TIMEOUT_MS), "rdma_resolve_addr");
        ack(expect(clientChannel, RDMA_CM_EVENT_ADDR_RESOLVED()));
        check(RdmaCmVerbs.rdma_resolve_route(errno, clientId, RESOLVE_TIMEOUT_MS), "rdma_resolve_route");
        ack(expect(clientChannel, RDMA_CM_EVENT_ROUTE_RESOLVED()));
        Endpoint client = endpoint(clientId);

        byte[] hello = "jrdma".getBytes(StandardCharsets.US_ASCII);
        MemorySegment connParam = arena.allocate(rdma_conn_param.layout());
        rdma_conn_param.private_data(connParam, arena.allocateFrom(JAVA_BYTE, hello));
        rdma_conn_param.private_data_len(connParam, (byte) hello.length);
        rdma_conn_param.responder_resources(connParam, (byte) 1);
        rdma_conn_param.initiator_depth(connParam, (byte) 1);
        rdma_conn_param.retry_count(connParam, (byte) 7);
        rdma_conn_param.rnr_retry_count(connParam, (byte) 7);
        client.postRecv();
        check(RdmaCmVerbs.rdma_connect(errno, clientId, connParam), "rdma_connect");

        MemorySegment request = expect(serverChannel, RDMA_CM_EVENT_CONNECT_REQUEST());
        MemorySegment conn = rdma_cm_event.param.conn(rdma_cm_event.param(request));
        byte[] received = rdma_conn_param.private_data(conn)
                .reinterpret(hello.length).toArray(JAVA_BYTE);
        MemorySegment serverId = rdma_cm_event.id(request).reinterpret(rdma_cm_id.layout().byteSize());
        ack(request);
        assertArrayEquals(hello, received, "private data of the connect request");
        cleanup.push(() -> RdmaCmVerbs.rdma_destroy_id(errno, serverId));
        Endpoint server = endpoint(serverId);
        MemorySegment acceptParam = arena.allocate(rdma_conn_param.layout());
        rdma_conn_param.responder_resources(acceptParam, (byte) 1);
        rdma_conn_param.initiator_depth(acceptParam, (byte) 1);
        rdma_conn_param.rnr_retry_count(acceptParam, (byte) 7);
        check(RdmaCmVerbs.rdma_accept(errno, serverId, acceptParam), "rdma_accept");
        ack(expect(clientChannel, RDMA_CM_EVENT_ESTABLISHED()));
        ack(expect(serverChannel, RDMA_CM_EVENT_ESTABLISHED()));

        byte[] message = "Hello over rdma_cm".getBytes(StandardCharsets.US_ASCII);
        server.buffer.asSlice(0, message.length).copyFrom(MemorySegment.ofArray(message));
        server.postSend(message.length);
        MemorySegment wc = client.awaitCompletion();
        assertEquals(IBV_WC_SUCCESS(), ibv_wc.status(wc));
        assertEquals(IBV_WC_RECV(), ibv_wc.opcode(wc));
        assertEquals(message.length, ibv_wc.byte_len(wc));
        assertArrayEquals(message, client.buffer.asSlice(0, message.length).toArray(JAVA_BYTE));

        // The passive side sees DISCONNECTED on the DREQ; its own rdma_disconnect answers with
        // the DREP, and only that completes the active side's disconnect.
        check(RdmaCmVerbs.rdma_disconnect(errno, clientId), "rdma_disconnect(client)");
        ack(expect(serverChannel, RDMA_CM_EVENT_DISCONNECTED()));
        check(RdmaCmVerbs.rdma_disconnect(errno, serverId), "rdma_disconnect(server)");
        ack(expect(clientChannel, RDMA_CM_EVENT_DISCONNECTED()));
    }

    /** A connected side: PD, CQ, QP created through rdma_cm, one registered buffer. */
    private final class Endpoint {
        final MemorySegment qp;
        final MemorySegment cq;
        final MemorySegment buffer = arena.allocate(4096, 4096);
        final int lkey;
        final MemorySegment wc = arena.allocate(ibv_wc.layout());
        final MemorySegment sge = arena.allocate(ibv_sge.layout());
        final MemorySegment badWr = arena.allocate(ADDRESS);

        Endpoint(MemorySegment id) {
            MemorySegment context = rdma_cm_id.verbs(id);
            MemorySegment pd = ErrnoVerbs.ibv_alloc_pd(errno, context);
            require(pd, "ibv_alloc_pd");
            cleanup.push(() -> ibv_dealloc_pd(pd));
            cq = ErrnoVerbs.ibv_create_cq(errno, context, 8, MemorySegment.NULL, MemorySegment.NULL, 0);
            require(cq, "ibv_create_cq");
            cleanup.push(() -> ibv_destroy_cq(cq));
            MemorySegment mr = ErrnoVerbs.ibv_reg_mr_iova2(errno, pd, buffer, buffer.byteSize(), buffer.address(),
                    IBV_ACCESS_LOCAL_WRITE());
            require(mr, "ibv_reg_mr_iova2");
            cleanup.push(() -> ibv_dereg_mr(mr));
            lkey = ibv_mr.lkey(mr.reinterpret(ibv_mr.layout().byteSize()));
            MemorySegment init = RawRcLoopback.rcInitAttributes(arena, cq, 4);
            check(RdmaCmVerbs.rdma_create_qp(errno, id, pd, init), "rdma_create_qp");
            cleanup.push(() -> rdma_destroy_qp(id));
            qp = rdma_cm_id.qp(id);
        }

        void postRecv() {
            ibv_sge.addr(sge, buffer.address());
            ibv_sge.length(sge, (int) buffer.byteSize());
            ibv_sge.lkey(sge, lkey);
            MemorySegment wr = arena.allocate(ibv_recv_wr.layout());
            ibv_recv_wr.sg_list(wr, sge);
            ibv_recv_wr.num_sge(wr, 1);
            RawRcLoopback.check(InlineVerbs.ibv_post_recv(qp, wr, badWr), "ibv_post_recv");
        }

        void postSend(int length) {
            ibv_sge.addr(sge, buffer.address());
            ibv_sge.length(sge, length);
            ibv_sge.lkey(sge, lkey);
            MemorySegment wr = arena.allocate(ibv_send_wr.layout());
            ibv_send_wr.sg_list(wr, sge);
            ibv_send_wr.num_sge(wr, 1);
            ibv_send_wr.opcode(wr, IBV_WR_SEND());
            ibv_send_wr.send_flags(wr, IBV_SEND_SIGNALED());
            RawRcLoopback.check(InlineVerbs.ibv_post_send(qp, wr, badWr), "ibv_post_send");
        }

        MemorySegment awaitCompletion() {
            long deadline = System.nanoTime() + EVENT_TIMEOUT_MS * 1_000_000L;
            while (InlineVerbs.ibv_poll_cq(cq, 1, wc) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("no completion within " + EVENT_TIMEOUT_MS + " ms");
                }
                Thread.onSpinWait();
            }
            return wc;
        }
    }

    private Endpoint endpoint(MemorySegment id) {
        return new Endpoint(id.reinterpret(rdma_cm_id.layout().byteSize()));
    }

    private MemorySegment channel() {
        MemorySegment channel = RdmaCmVerbs.rdma_create_event_channel(errno);
        require(channel, "rdma_create_event_channel");
        cleanup.push(() -> rdma_destroy_event_channel(channel));
        return channel.reinterpret(rdma_event_channel.layout().byteSize());
    }

    private MemorySegment createId(MemorySegment channel) {
        MemorySegment idOut = arena.allocate(ADDRESS);
        check(RdmaCmVerbs.rdma_create_id(errno, channel, idOut, MemorySegment.NULL, RDMA_PS_TCP()), "rdma_create_id");
        MemorySegment id = idOut.get(ADDRESS, 0).reinterpret(rdma_cm_id.layout().byteSize());
        cleanup.push(() -> RdmaCmVerbs.rdma_destroy_id(errno, id));
        return id;
    }

    /** Waits (bounded) for the next event on {@code channel} and checks its type; the caller acks it. */
    private MemorySegment expect(MemorySegment channel, int type) {
        int fd = rdma_event_channel.fd(channel);
        if (!Posix.awaitReadable(fd, EVENT_TIMEOUT_MS)) {
            throw new AssertionError("no rdma_cm event within " + EVENT_TIMEOUT_MS + " ms, expected "
                    + rdma_event_str(type).getString(0));
        }
        MemorySegment eventOut = arena.allocate(ADDRESS);
        check(RdmaCmVerbs.rdma_get_cm_event(errno, channel, eventOut), "rdma_get_cm_event");
        MemorySegment event = eventOut.get(ADDRESS, 0).reinterpret(rdma_cm_event.layout().byteSize());
        int got = rdma_cm_event.event(event);
        if (got != type) {
            String text = rdma_event_str(got).getString(0) + " (status " + rdma_cm_event.status(event) + ")";
            ack(event);
            throw new AssertionError("expected " + rdma_event_str(type).getString(0) + ", got " + text);
        }
        return event;
    }

    private void ack(MemorySegment event) {
        check(RdmaCmVerbs.rdma_ack_cm_event(errno, event), "rdma_ack_cm_event");
    }

    private MemorySegment sockaddr(Inet4Address ip, int port) {
        MemorySegment sa = arena.allocate(sockaddr_in.layout());
        sockaddr_in.sin_family(sa, (short) AF_INET());
        // sin_port and sin_addr are in network byte order.
        sockaddr_in.sin_port(sa, Short.reverseBytes((short) port));
        in_addr.s_addr(sockaddr_in.sin_addr(sa), ByteBuffer.wrap(ip.getAddress()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt());
        return sa;
    }

    private void check(int rc, String verb) {
        if (rc != 0) {
            int e = Errno.get(errno);
            throw new IllegalStateException(verb + " failed: errno " + e + " (" + Posix.strerror(e) + ")");
        }
    }

    private void require(MemorySegment result, String verb) {
        if (result.address() == 0) {
            int e = Errno.get(errno);
            throw new IllegalStateException(verb + " failed: errno " + e + " (" + Posix.strerror(e) + ")");
        }
    }
}
