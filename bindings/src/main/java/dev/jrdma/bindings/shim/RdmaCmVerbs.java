// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.generated.rdma_h.*;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
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
    private static final MethodHandle SET_OPTION = Errno.capturing(rdma_set_option$address(), rdma_set_option$descriptor());
    private static final MethodHandle NOTIFY = Errno.capturing(rdma_notify$address(), rdma_notify$descriptor());
    private static final MethodHandle MIGRATE_ID = Errno.capturing(rdma_migrate_id$address(), rdma_migrate_id$descriptor());
    private static final MethodHandle INIT_QP_ATTR =
            Errno.capturing(rdma_init_qp_attr$address(), rdma_init_qp_attr$descriptor());
    private static final MethodHandle ESTABLISH = Errno.capturing(rdma_establish$address(), rdma_establish$descriptor());
    private static final MethodHandle JOIN_MULTICAST =
            Errno.capturing(rdma_join_multicast$address(), rdma_join_multicast$descriptor());
    private static final MethodHandle JOIN_MULTICAST_EX =
            Errno.capturing(rdma_join_multicast_ex$address(), rdma_join_multicast_ex$descriptor());
    private static final MethodHandle LEAVE_MULTICAST =
            Errno.capturing(rdma_leave_multicast$address(), rdma_leave_multicast$descriptor());
    private static final MethodHandle SET_LOCAL_ECE =
            Errno.capturing(rdma_set_local_ece$address(), rdma_set_local_ece$descriptor());
    private static final MethodHandle GET_REMOTE_ECE =
            Errno.capturing(rdma_get_remote_ece$address(), rdma_get_remote_ece$descriptor());
    private static final MethodHandle REJECT_ECE = Errno.capturing(rdma_reject_ece$address(), rdma_reject_ece$descriptor());
    private static final MethodHandle GETADDRINFO =
            Errno.capturing(rdma_getaddrinfo$address(), rdma_getaddrinfo$descriptor());
    private static final MethodHandle CREATE_EP = Errno.capturing(rdma_create_ep$address(), rdma_create_ep$descriptor());
    private static final MethodHandle GET_REQUEST = Errno.capturing(rdma_get_request$address(), rdma_get_request$descriptor());
    private static final MethodHandle CREATE_QP_EX =
            Errno.capturing(rdma_create_qp_ex$address(), rdma_create_qp_ex$descriptor());
    private static final MethodHandle GET_DEVICES = Errno.capturing(rdma_get_devices$address(), rdma_get_devices$descriptor());

    // rdma_create_srq, rdma_create_srq_ex and rdma_destroy_srq are exported by librdmacm.so.1 and
    // declared in rdma/rdma_verbs.h, which the jextract run did not include, so the generated
    // bindings lack them; jextract is not available to regenerate, hence these hand-made
    // downcalls. Signatures (rdma-core 44, rdma_verbs.h):
    //   int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
    //   int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr);
    //   void rdma_destroy_srq(struct rdma_cm_id *id);
    private static final SymbolLookup RDMACM = SymbolLookup.libraryLookup("librdmacm.so.1", Arena.global());
    private static final MethodHandle CREATE_SRQ = Errno.capturing(rdmacm("rdma_create_srq"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle CREATE_SRQ_EX = Errno.capturing(rdmacm("rdma_create_srq_ex"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle DESTROY_SRQ = Linker.nativeLinker().downcallHandle(rdmacm("rdma_destroy_srq"),
            FunctionDescriptor.ofVoid(ADDRESS));

    private static MemorySegment rdmacm(String symbol) {
        return RDMACM.find(symbol).orElseThrow(() -> new UnsatisfiedLinkError("librdmacm.so.1 has no " + symbol));
    }

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
    /** {@code rdma_set_option(id, level, optname, optval, optlen)}: 0, or -1 and errno. */
    public static int rdma_set_option(MemorySegment errno, MemorySegment id, int level, int optname, MemorySegment optval, long optlen) {
        try {
            return (int) SET_OPTION.invokeExact(errno, id, level, optname, optval, optlen);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_notify(id, ibv_event_type)}: 0, or -1 and errno. */
    public static int rdma_notify(MemorySegment errno, MemorySegment id, int event) {
        try {
            return (int) NOTIFY.invokeExact(errno, id, event);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_migrate_id(id, channel)}: 0, or -1 and errno; waits until the id's events on the old channel are acked. */
    public static int rdma_migrate_id(MemorySegment errno, MemorySegment id, MemorySegment channel) {
        try {
            return (int) MIGRATE_ID.invokeExact(errno, id, channel);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_init_qp_attr(id, qp_attr, &mask)}: qp_attr.qp_state in, the attributes for it out; 0, or -1 and errno. */
    public static int rdma_init_qp_attr(MemorySegment errno, MemorySegment id, MemorySegment qpAttr, MemorySegment maskOut) {
        try {
            return (int) INIT_QP_ATTR.invokeExact(errno, id, qpAttr, maskOut);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_establish(id)}: 0, or -1 and errno (EINVAL when the id has its own QP). */
    public static int rdma_establish(MemorySegment errno, MemorySegment id) {
        try {
            return (int) ESTABLISH.invokeExact(errno, id);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_join_multicast(id, addr, context)}: 0, or -1 and errno; MULTICAST_JOIN or MULTICAST_ERROR follows. */
    public static int rdma_join_multicast(MemorySegment errno, MemorySegment id, MemorySegment addr, MemorySegment context) {
        try {
            return (int) JOIN_MULTICAST.invokeExact(errno, id, addr, context);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_join_multicast_ex(id, mc_join_attr, context)}: 0, or -1 and errno. */
    public static int rdma_join_multicast_ex(MemorySegment errno, MemorySegment id, MemorySegment attr, MemorySegment context) {
        try {
            return (int) JOIN_MULTICAST_EX.invokeExact(errno, id, attr, context);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_leave_multicast(id, addr)}: 0, or -1 and errno. */
    public static int rdma_leave_multicast(MemorySegment errno, MemorySegment id, MemorySegment addr) {
        try {
            return (int) LEAVE_MULTICAST.invokeExact(errno, id, addr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_set_local_ece(id, ece)}: 0, or -1 and errno (EINVAL once the id has a QP). */
    public static int rdma_set_local_ece(MemorySegment errno, MemorySegment id, MemorySegment ece) {
        try {
            return (int) SET_LOCAL_ECE.invokeExact(errno, id, ece);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_get_remote_ece(id, ece)}: 0, or -1 and errno. */
    public static int rdma_get_remote_ece(MemorySegment errno, MemorySegment id, MemorySegment ece) {
        try {
            return (int) GET_REMOTE_ECE.invokeExact(errno, id, ece);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_reject_ece(id, private_data, len)}: rejects with reason 35 (vendor option not supported); 0, or -1 and errno. */
    public static int rdma_reject_ece(MemorySegment errno, MemorySegment id, MemorySegment privateData, byte length) {
        try {
            return (int) REJECT_ECE.invokeExact(errno, id, privateData, length);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_getaddrinfo(node, service, hints, &res)}: 0, or -1 and errno; free res with rdma_freeaddrinfo. */
    public static int rdma_getaddrinfo(MemorySegment errno, MemorySegment node, MemorySegment service, MemorySegment hints, MemorySegment resOut) {
        try {
            return (int) GETADDRINFO.invokeExact(errno, node, service, hints, resOut);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_create_ep(&id, res, pd, qp_init_attr)}: a synchronous id, resolved (active) or bound (passive); 0, or -1 and errno. */
    public static int rdma_create_ep(MemorySegment errno, MemorySegment idOut, MemorySegment res, MemorySegment pd, MemorySegment qpInitAttr) {
        try {
            return (int) CREATE_EP.invokeExact(errno, idOut, res, pd, qpInitAttr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_get_request(listen, &id)}: blocks on the synchronous listener's channel; 0, or -1 and errno. */
    public static int rdma_get_request(MemorySegment errno, MemorySegment listen, MemorySegment idOut) {
        try {
            return (int) GET_REQUEST.invokeExact(errno, listen, idOut);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_create_qp_ex(id, qp_init_attr_ex)}: 0, or -1 and errno; the QP is then {@code id->qp}. */
    public static int rdma_create_qp_ex(MemorySegment errno, MemorySegment id, MemorySegment initAttrEx) {
        try {
            return (int) CREATE_QP_EX.invokeExact(errno, id, initAttrEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_get_devices(&num)}: a NULL-terminated array of librdmacm's contexts, or NULL and errno; free with rdma_free_devices. */
    public static MemorySegment rdma_get_devices(MemorySegment errno, MemorySegment numOut) {
        try {
            return (MemorySegment) GET_DEVICES.invokeExact(errno, numOut);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_create_srq(id, pd, init_attr)} (hand-bound): 0, or -1 and errno; the SRQ is then {@code id->srq}. */
    public static int rdma_create_srq(MemorySegment errno, MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        try {
            return (int) CREATE_SRQ.invokeExact(errno, id, pd, initAttr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_create_srq_ex(id, init_attr_ex)} (hand-bound): 0, or -1 and errno; the SRQ is then {@code id->srq}. */
    public static int rdma_create_srq_ex(MemorySegment errno, MemorySegment id, MemorySegment initAttrEx) {
        try {
            return (int) CREATE_SRQ_EX.invokeExact(errno, id, initAttrEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code rdma_destroy_srq(id)} (hand-bound): destroys {@code id->srq} and clears it; cannot fail. */
    public static void rdma_destroy_srq(MemorySegment id) {
        try {
            DESTROY_SRQ.invokeExact(id);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
