// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.generated.rdma_h.*;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * librdmacm calls re-bound with errno capture.
 *
 * <p>Why: every rdma_cm call reports failure as -1 (or NULL) with the reason only in errno,
 * which jextract's handles do not capture. Each method takes the capture state
 * ({@link Errno#allocate}) first and otherwise mirrors the C signature; descriptors and
 * addresses come from the generated bindings. Calls that cannot fail
 * ({@code rdma_destroy_event_channel}, {@code rdma_destroy_qp}, {@code rdma_event_str}) are
 * used from the generated class directly.
 *
 * <p>{@code rdma_get_cm_event} blocks without a timeout; wait for the channel's fd with
 * {@link Posix#awaitReadable} first.
 */
public final class RdmaCmVerbs {
    private RdmaCmVerbs() {}

    private static final MethodHandle CREATE_EVENT_CHANNEL =
            Errno.capturing(rdma_create_event_channel$address(), rdma_create_event_channel$descriptor());
    private static final MethodHandle CREATE_ID = Errno.capturing(rdma_create_id$address(), rdma_create_id$descriptor());
    private static final MethodHandle DESTROY_ID = Errno.capturing(rdma_destroy_id$address(), rdma_destroy_id$descriptor());
    private static final MethodHandle BIND_ADDR = Errno.capturing(rdma_bind_addr$address(), rdma_bind_addr$descriptor());
    private static final MethodHandle RESOLVE_ADDR =
            Errno.capturing(rdma_resolve_addr$address(), rdma_resolve_addr$descriptor());
    private static final MethodHandle RESOLVE_ROUTE =
            Errno.capturing(rdma_resolve_route$address(), rdma_resolve_route$descriptor());
    private static final MethodHandle CREATE_QP = Errno.capturing(rdma_create_qp$address(), rdma_create_qp$descriptor());
    private static final MethodHandle CONNECT = Errno.capturing(rdma_connect$address(), rdma_connect$descriptor());
    private static final MethodHandle LISTEN = Errno.capturing(rdma_listen$address(), rdma_listen$descriptor());
    private static final MethodHandle ACCEPT = Errno.capturing(rdma_accept$address(), rdma_accept$descriptor());
    private static final MethodHandle REJECT = Errno.capturing(rdma_reject$address(), rdma_reject$descriptor());
    private static final MethodHandle DISCONNECT = Errno.capturing(rdma_disconnect$address(), rdma_disconnect$descriptor());
    private static final MethodHandle GET_CM_EVENT =
            Errno.capturing(rdma_get_cm_event$address(), rdma_get_cm_event$descriptor());
    private static final MethodHandle ACK_CM_EVENT =
            Errno.capturing(rdma_ack_cm_event$address(), rdma_ack_cm_event$descriptor());

    /** {@code rdma_create_event_channel}: NULL and errno on failure (e.g. no rdma_ucm). */
    public static MemorySegment rdma_create_event_channel(MemorySegment errno) {
        try {
            return (MemorySegment) CREATE_EVENT_CHANNEL.invokeExact(errno);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_create_id(channel, &id, context, ps)}: 0, or -1 and errno. */
    public static int rdma_create_id(MemorySegment errno, MemorySegment channel, MemorySegment idOut,
                                     MemorySegment context, int portSpace) {
        try {
            return (int) CREATE_ID.invokeExact(errno, channel, idOut, context, portSpace);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_destroy_id}: 0, or -1 and errno. */
    public static int rdma_destroy_id(MemorySegment errno, MemorySegment id) {
        try {
            return (int) DESTROY_ID.invokeExact(errno, id);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_bind_addr(id, sockaddr)}: 0, or -1 and errno. */
    public static int rdma_bind_addr(MemorySegment errno, MemorySegment id, MemorySegment addr) {
        try {
            return (int) BIND_ADDR.invokeExact(errno, id, addr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_resolve_addr}: 0, or -1 and errno; completion arrives as an ADDR_RESOLVED/ADDR_ERROR event. */
    public static int rdma_resolve_addr(MemorySegment errno, MemorySegment id, MemorySegment src, MemorySegment dst,
                                        int timeoutMs) {
        try {
            return (int) RESOLVE_ADDR.invokeExact(errno, id, src, dst, timeoutMs);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_resolve_route}: 0, or -1 and errno; completion arrives as ROUTE_RESOLVED/ROUTE_ERROR. */
    public static int rdma_resolve_route(MemorySegment errno, MemorySegment id, int timeoutMs) {
        try {
            return (int) RESOLVE_ROUTE.invokeExact(errno, id, timeoutMs);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_create_qp(id, pd, init_attr)}: 0, or -1 and errno; the QP is then {@code id->qp}. */
    public static int rdma_create_qp(MemorySegment errno, MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        try {
            return (int) CREATE_QP.invokeExact(errno, id, pd, initAttr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_connect(id, conn_param)}: 0, or -1 and errno. */
    public static int rdma_connect(MemorySegment errno, MemorySegment id, MemorySegment connParam) {
        try {
            return (int) CONNECT.invokeExact(errno, id, connParam);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_listen(id, backlog)}: 0, or -1 and errno. */
    public static int rdma_listen(MemorySegment errno, MemorySegment id, int backlog) {
        try {
            return (int) LISTEN.invokeExact(errno, id, backlog);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_accept(id, conn_param)}: 0, or -1 and errno. */
    public static int rdma_accept(MemorySegment errno, MemorySegment id, MemorySegment connParam) {
        try {
            return (int) ACCEPT.invokeExact(errno, id, connParam);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_reject(id, private_data, len)}: 0, or -1 and errno. */
    public static int rdma_reject(MemorySegment errno, MemorySegment id, MemorySegment privateData, byte length) {
        try {
            return (int) REJECT.invokeExact(errno, id, privateData, length);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_disconnect(id)}: 0, or -1 and errno. */
    public static int rdma_disconnect(MemorySegment errno, MemorySegment id) {
        try {
            return (int) DISCONNECT.invokeExact(errno, id);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_get_cm_event(channel, &event)}: blocks unless the channel fd is readable; 0, or -1 and errno. */
    public static int rdma_get_cm_event(MemorySegment errno, MemorySegment channel, MemorySegment eventOut) {
        try {
            return (int) GET_CM_EVENT.invokeExact(errno, channel, eventOut);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_ack_cm_event(event)}: every event must be acked, or rdma_destroy_id blocks forever. */
    public static int rdma_ack_cm_event(MemorySegment errno, MemorySegment event) {
        try {
            return (int) ACK_CM_EVENT.invokeExact(errno, event);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
