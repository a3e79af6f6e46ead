// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_async_event;
import dev.jrdma.bindings.generated.ibv_comp_channel;
import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.IpCommand;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Completion channels and asynchronous events: the blocking verbs, each wait bounded by poll(2). */
@DeviceTest
class RawEventsDeviceTest {
    private static final long TIMEOUT_MS = 20_000;

    @Test
    void completionChannelWakesUpOnlyAfterANotifiedCompletion() {
        try (RawRcLoopback rc = new RawRcLoopback(RawDevices.testDevice(), true, m -> { });
             Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            int fd = ibv_comp_channel.fd(rc.channel);
            RawRcLoopback.check(InlineVerbs.ibv_req_notify_cq(rc.cq, 0), "ibv_req_notify_cq");
            assertFalse(Posix.awaitReadable(fd, 200), "no completion yet, the channel must stay quiet");

            MemorySegment source = rc.half(0).asSlice(0, 8);
            rc.postSend(0, 9, IBV_WR_RDMA_WRITE(), source, rc.lkey(), rc.half(1).address(), rc.rkey());
            assertTrue(Posix.awaitReadable(fd, TIMEOUT_MS), "no completion event within " + TIMEOUT_MS + " ms");
            MemorySegment cqOut = arena.allocate(ADDRESS);
            MemorySegment cqContextOut = arena.allocate(ADDRESS);
            if (ErrnoVerbs.ibv_get_cq_event(errno, rc.channel, cqOut, cqContextOut) != 0) {
                throw new IllegalStateException("ibv_get_cq_event failed: " + Posix.strerror(Errno.get(errno)));
            }
            assertEquals(rc.cq.address(), cqOut.get(ADDRESS, 0).address());
            // Unacknowledged events make ibv_destroy_cq block forever.
            ibv_ack_cq_events(rc.cq, 1);
            MemorySegment wc = rc.pollOne();
            assertEquals(9, ibv_wc.wr_id(wc));
            assertEquals(IBV_WC_SUCCESS(), ibv_wc.status(wc));
        }
    }

    @Test
    void portGoingDownAndUpArrivesAsAsyncEvents() throws Exception {
        Assumptions.assumeTrue(System.getenv("JRDMA_IN_SOFTROCE_VM") != null,
                "toggles the netdev under rxe1, so it runs only in the Soft-RoCE VM");
        try (RawRcLoopback rc = new RawRcLoopback("rxe1", m -> { }); Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment context = rc.context.reinterpret(ibv_context.layout().byteSize());
            int fd = ibv_context.async_fd(context);
            MemorySegment event = arena.allocate(ibv_async_event.layout());
            try {
                IpCommand.run("link", "set", "v1", "down");
                assertEquals(IBV_EVENT_PORT_ERR(), nextPortEvent(rc, errno, fd, event));
            } finally {
                IpCommand.run("link", "set", "v1", "up");
            }
            assertEquals(IBV_EVENT_PORT_ACTIVE(), nextPortEvent(rc, errno, fd, event));
        }
    }

    /** Waits (bounded) for the next async event, checks it names port 1, acks it, returns its type. */
    private static int nextPortEvent(RawRcLoopback rc, MemorySegment errno, int fd, MemorySegment event) {
        assertTrue(Posix.awaitReadable(fd, TIMEOUT_MS), "no async event within " + TIMEOUT_MS + " ms");
        if (ErrnoVerbs.ibv_get_async_event(errno, rc.context, event) != 0) {
            throw new IllegalStateException("ibv_get_async_event failed: " + Posix.strerror(Errno.get(errno)));
        }
        int type = ibv_async_event.event_type(event);
        int port = ibv_async_event.element.port_num(ibv_async_event.element(event));
        ibv_ack_async_event(event);
        assertEquals(RawRcLoopback.PORT, port, "event " + ibv_event_type_str(type).getString(0));
        return type;
    }
}
