// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.AsyncEventType;
import dev.jrdma.Ece;
import dev.jrdma.NativeResource;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairState;
import dev.jrdma.RdmaException;
import dev.jrdma.Reaches;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.ibv_ece;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.CoreAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * An rdma_cm connection whose queue pair the application created and drives itself, from
 * {@link #of(CmId, QueuePair)}: rdma_cm exchanges the connection messages and says which
 * attributes each state needs ({@code rdma_init_qp_attr}); the application makes the
 * transitions with them. Needed when the queue pair is not one rdma_cm can create (another
 * device context, a QP shared with other code), and the only way to ECE with rdma_cm.
 *
 * <p>Client: {@link #moveTo} INIT, {@link #requestConnection}, {@link #moveTo} RTR and RTS,
 * {@link #establish}. Server, on a connect request's id: {@link #moveTo} INIT and RTR,
 * {@link #accept}, {@link #moveTo} RTS, {@link #awaitEstablished}. Not thread-safe.
 */
public final class ExternalQueuePair {
    private static final CoreAccess CORE = CoreAccess.get();

    private final CmId id;
    private final QueuePair qp;

    private ExternalQueuePair(CmId id, QueuePair qp) {
        this.id = id;
        this.qp = qp;
    }

    /**
     * {@return a connection of {@code id} over {@code qp}, a queue pair the application created
     * and drives itself} with the attributes rdma_cm gives; the id must have no queue pair of
     * its own
     *
     * @param id a connection id, resolved (client) or from a connect request (server)
     * @param qp an RC or UC queue pair in RESET, on a protection domain of {@code id.context()}
     */
    public static ExternalQueuePair of(CmId id, QueuePair qp) {
        if (qp.protectionDomain().context() != id.context()) {
            throw new IllegalArgumentException(qp + " must be on " + id + ".context()");
        }
        if (hasOwnQueuePair(id)) {
            throw new IllegalStateException(id + " has a queue pair of its own, which rdma_cm drives");
        }
        return new ExternalQueuePair(id, qp);
    }

    /** {@return the application's queue pair} */
    public QueuePair queuePair() {
        return qp;
    }

    /** {@return the rdma_cm id} */
    public CmId id() {
        return id;
    }

    /**
     * Moves the queue pair to {@code target} with the attributes and mask rdma_cm gives for
     * it ({@code rdma_init_qp_attr}, then {@code ibv_modify_qp}): the port and P_Key index for
     * INIT, the path, remote QPN and PSNs for RTR (after the peer's reply or request), timeouts
     * for RTS.
     *
     * @param target INIT, RTR or RTS
     * @throws RdmaException if rdma_cm has no attributes for that state yet (EINVAL) or the device refuses them
     */
    @Reaches("rdma_init_qp_attr")
    public void moveTo(QueuePairState target) {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(id.lifetime, qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, CORE.value(target));
            MemorySegment mask = arena.allocate(JAVA_INT);
            MemorySegment errno = Errno.allocate(arena);
            if (RdmaCmVerbs.rdma_init_qp_attr(errno, id.handle(), attr, mask) != 0) {
                throw CORE.exception(Verb.RDMA_INIT_QP_ATTR, id, Errno.get(errno), "for " + target + " of " + qp);
            }
            CORE.modify(qp, attr, mask.get(JAVA_INT, 0), target);
        }
    }

    /**
     * Sends the connect request for this queue pair ({@code rdma_connect} with its QPN) and
     * waits for the peer's reply (CONNECT_RESPONSE); then {@link #moveTo} RTR and RTS and
     * {@link #establish}.
     *
     * @param privateData sent with the request (at most 56 bytes)
     * @param timeout     how long to wait for the reply
     * @return the private data of the reply
     * @throws RdmaException on a rejection (REJECTED) or another event
     */
    @Reaches("rdma_connect")
    public byte[] requestConnection(byte[] privateData, Duration timeout) {
        id.call(Verb.RDMA_CONNECT, (arena, errno) ->
                RdmaCmVerbs.rdma_connect(errno, id.handle(), CmParams.connParam(arena, privateData, qp)));
        return id.expect(CmEventType.CONNECT_RESPONSE, timeout, Verb.RDMA_CONNECT).privateData();
    }

    /**
     * Tells the peer the connection is up ({@code rdma_establish}, the RTU message), after the
     * queue pair reached RTS.
     */
    @Reaches("rdma_establish")
    public void establish() {
        id.call(Verb.RDMA_ESTABLISH, (arena, errno) -> RdmaCmVerbs.rdma_establish(errno, id.handle()));
    }

    /**
     * Accepts this connect request's connection for the queue pair ({@code rdma_accept} with its
     * QPN), which should be in RTR; returns without waiting, see {@link #awaitEstablished}.
     *
     * @param privateData sent with the reply (at most 56 bytes)
     */
    @Reaches("rdma_accept")
    public void accept(byte[] privateData) {
        id.call(Verb.RDMA_ACCEPT, (arena, errno) ->
                RdmaCmVerbs.rdma_accept(errno, id.handle(), CmParams.connParam(arena, privateData, qp)));
    }

    /**
     * Waits for ESTABLISHED: the peer's {@link #establish}, or a {@link #notify} here.
     *
     * @param timeout how long to wait
     */
    public void awaitEstablished(Duration timeout) {
        id.expect(CmEventType.ESTABLISHED, timeout, Verb.RDMA_ACCEPT, "awaiting ESTABLISHED");
    }

    /**
     * Reports a queue pair event to rdma_cm ({@code rdma_notify}): {@link AsyncEventType#COMM_EST}
     * when the queue pair received data before the peer's RTU message arrived, so that the
     * connection counts as established (ESTABLISHED follows on this id).
     *
     * @param event the queue pair's async event
     * @throws RdmaException if the connection is in no state for it (e.g. EISCONN: already established)
     */
    @Reaches("rdma_notify")
    public void notify(AsyncEventType event) {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(id.lifetime)) {
            MemorySegment errno = Errno.allocate(arena);
            if (RdmaCmVerbs.rdma_notify(errno, id.handle(), event.ordinal()) != 0) {
                throw CORE.exception(Verb.RDMA_NOTIFY, id, Errno.get(errno), event.name());
            }
        }
    }

    /**
     * Offers ECE options in the connect request or reply ({@code rdma_set_local_ece}); call
     * before {@link #requestConnection} or {@link #accept}.
     *
     * @param ece the vendor id (not 0) and options
     */
    @Reaches("rdma_set_local_ece")
    public void setLocalEce(Ece ece) {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(id.lifetime)) {
            MemorySegment c = arena.allocate(ibv_ece.layout());
            ibv_ece.vendor_id(c, ece.vendorId());
            ibv_ece.options(c, ece.options());
            MemorySegment errno = Errno.allocate(arena);
            if (RdmaCmVerbs.rdma_set_local_ece(errno, id.handle(), c) != 0) {
                throw CORE.exception(Verb.RDMA_SET_LOCAL_ECE, id, Errno.get(errno), ece.toString());
            }
        }
    }

    /**
     * {@return the ECE options the peer sent ({@code rdma_get_remote_ece})}: on a connect
     * request's id, the client's; after {@link #requestConnection}, the server's answer;
     * {@link Ece#NONE} when it sent none
     */
    @Reaches("rdma_get_remote_ece")
    public Ece remoteEce() {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(id.lifetime)) {
            MemorySegment c = arena.allocate(ibv_ece.layout());
            MemorySegment errno = Errno.allocate(arena);
            id.check(RdmaCmVerbs.rdma_get_remote_ece(errno, id.handle(), c), Verb.RDMA_GET_REMOTE_ECE, errno);
            return new Ece(ibv_ece.vendor_id(c), ibv_ece.options(c));
        }
    }

    /**
     * Rejects the connect request because its ECE options are not acceptable
     * ({@code rdma_reject_ece}: reason 35, vendor option not supported); the client's
     * {@link #requestConnection} fails with REJECTED.
     *
     * @param privateData sent with the rejection
     */
    @Reaches("rdma_reject_ece")
    public void rejectEce(byte[] privateData) {
        id.call(Verb.RDMA_REJECT, (arena, errno) -> {
            MemorySegment data = CmParams.privateData(arena, privateData);
            return RdmaCmVerbs.rdma_reject_ece(errno, id.handle(), data, (byte) privateData.length);
        });
    }

    /** {@code <queue pair> driven by <id>}. */
    @Override
    public String toString() {
        return qp + " driven by " + id;
    }

    /** Whether {@code id} has a queue pair of its own (then rdma_cm drives it). */
    private static boolean hasOwnQueuePair(CmId id) {
        try (var _ = CORE.hold(id.lifetime)) {
            return rdma_cm_id.qp(id.handle()).address() != 0;
        }
    }
}
