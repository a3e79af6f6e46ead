// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;

/**
 * The state transitions of one queue pair ({@code ibv_modify_qp}) and the local endpoint
 * (port, source GID index, PSN) they need; kept apart from {@link QueuePair}, whose file holds
 * the data path, so that the control path can grow without touching it.
 */
final class QpConnector {
    private static final SecureRandom PSN_SOURCE = new SecureRandom();

    private final QueuePair qp;
    /** Set by {@link #localEndpoint}: the port, source GID index and PSN the transitions use. */
    private int port;
    private int gidIndex = -1;
    private Endpoint local;

    QpConnector(QueuePair qp) {
        this.qp = qp;
    }

    /** The state the device reports ({@code ibv_query_qp}). */
    QueuePairState state() {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            RdmaException.check(Verb.IBV_QUERY_QP, qp, rdma_h.ibv_query_qp(qp.handle, attr, QpAttribute.STATE.bit, init));
            return QueuePairState.of(ibv_qp_attr.qp_state(attr));
        }
    }

    Endpoint localEndpoint(int port, int gidIndex) {
        qp.checkOpen();
        Context context = qp.protectionDomain().context();
        PortAttributes attributes = context.queryPort(port);
        Gid gid = context.gid(port, gidIndex).map(GidEntry::gid).orElseThrow(() -> new IllegalArgumentException(
                "GID index " + gidIndex + " of " + context + " port " + port + " is not in use"));
        this.port = port;
        this.gidIndex = gidIndex;
        this.local = new Endpoint(qp.qpNumber(), PSN_SOURCE.nextInt(1 << 24), attributes.lid(), gid, attributes.activeMtu());
        return local;
    }

    void connect(Endpoint remote, ConnectionOptions options) {
        requireLocal();
        toInit(port, options);
        toRtr(remote, options);
        toRts(options);
    }

    void toInit(int port, ConnectionOptions options) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            int mask = QpAttributes.init(attr, qp.type(), port, options);
            modify(attr, mask, QueuePairState.INIT);
        }
    }

    void toRtr(Endpoint remote, ConnectionOptions options) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            if (qp.type() != QueuePairType.UD) {
                requireLocal();
            }
            int mask = QpAttributes.rtr(attr, qp.type(), local, remote, port, gidIndex, options);
            modify(attr, mask, QueuePairState.RTR);
        }
    }

    void toRts(ConnectionOptions options) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            int mask = QpAttributes.rts(attr, qp.type(), local == null ? 0 : local.psn(), options);
            modify(attr, mask, QueuePairState.RTS);
        }
    }

    /** A transition that sets the state alone: to ERR or RESET. */
    void modifyState(QueuePairState target) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            ibv_qp_attr.qp_state(attr, target.value());
            modify(attr, QpAttribute.STATE.bit, target);
        }
    }

    /** A transition with attributes filled elsewhere: rdma_cm's, for {@link dev.jrdma.cm.ExternalQueuePair#moveTo}. */
    void modifyWith(MemorySegment attr, int mask, QueuePairState target) {
        try (var _ = NativeResource.hold(qp)) {
            modify(attr, mask, target);
        }
    }

    private void modify(MemorySegment attr, int mask, QueuePairState target) {
        int rc = rdma_h.ibv_modify_qp(qp.handle, attr, mask);
        if (rc != 0) {
            String detail = "to " + target + " with " + QpAttribute.names(mask);
            if (rc == Errno.EINVAL) {
                QueuePairState current = qp.state();
                String why = QpTransitions.explain(qp.type(), current, target, mask);
                detail += why.isEmpty() ? " (the mask fits " + current + " -> " + target
                        + ", so an attribute value was rejected)" : "; " + why;
            }
            throw RdmaException.of(Verb.IBV_MODIFY_QP, qp, rc, detail);
        }
        QueuePairState from = qp.lastState;
        setState(target);
        Events.stateChange(qp, from, target);
    }

    /**
     * Records {@code state} as the last transition's, and what it refuses as the one word the
     * posts test ({@code QueuePair.refused}): sends in RESET, INIT, RTR and ERR, receives in
     * RESET and ERR or with an SRQ.
     */
    void setState(QueuePairState state) {
        qp.lastState = state;
        int no = 0;
        if (state == QueuePairState.RESET || state == QueuePairState.INIT || state == QueuePairState.RTR
                || state == QueuePairState.ERR) {
            no |= QueuePair.NO_SEND;
        }
        if (qp.srq != null || state == QueuePairState.RESET || state == QueuePairState.ERR) {
            no |= QueuePair.NO_RECEIVE;
        }
        qp.refused = no;
    }

    /** Refuses a send-queue operation other than a post (a memory window bind) before RTS. */
    void requireRts(String what) {
        QueuePairState state = qp.lastState;
        if (state == QueuePairState.RESET || state == QueuePairState.INIT || state == QueuePairState.RTR) {
            throw new IllegalStateException("cannot " + what + " through " + qp + ": it is in " + state
                    + ", which needs RTS");
        }
    }

    /** The endpoint {@link #localEndpoint} made; IllegalStateException before it was called. */
    Endpoint requireLocalEndpoint() {
        qp.checkOpen();
        requireLocal();
        return local;
    }

    /** The port {@link #localEndpoint} fixed. */
    int port() {
        requireLocal();
        return port;
    }

    private void requireLocal() {
        if (local == null) {
            throw new IllegalStateException(qp + ": call localEndpoint(port, gidIndex) first: the RTR transition"
                    + " needs the port, the source GID index and the local PSN");
        }
    }
}
