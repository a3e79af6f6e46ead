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
 *
 * <p>The endpoint is a value of the queue pair, not a step of its setup: the port and GID entry
 * come from {@link QueuePair.Builder#sourceGid} (else {@link Context#defaultGid()}, looked up
 * the first time they are needed) and the initial PSN is drawn when the queue pair is created,
 * so every read of {@link #localEndpoint()} gives the same endpoint and no transition depends on
 * a call made before it.
 */
final class QpConnector {
    private static final SecureRandom PSN_SOURCE = new SecureRandom();

    private final QueuePair qp;
    /** The initial send PSN, fixed for the queue pair's life (24 bits, random as the spec advises). */
    private final int psn = PSN_SOURCE.nextInt(1 << 24);
    /** The port and GID entry the queue pair sends from; null until chosen or first needed. */
    private GidEntry source;
    /** The endpoint of {@link #source}, made the first time it is read. */
    private Endpoint local;

    QpConnector(QueuePair qp, GidEntry source) {
        this.qp = qp;
        this.source = source;
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

    /** The port and GID entry this queue pair sends from: the builder's, else the context's default. */
    synchronized GidEntry source() {
        qp.checkOpen();
        if (source == null) {
            source = qp.protectionDomain().context().defaultGid();
        }
        return source;
    }

    /** This side's endpoint: the same value every call (the port's LID and MTU as first read). */
    synchronized Endpoint localEndpoint() {
        GidEntry from = source();
        if (local == null) {
            PortAttributes attributes = qp.protectionDomain().context().queryPort(from.port());
            local = new Endpoint(qp.qpNumber(), psn, attributes.lid(), from.gid(), attributes.activeMtu());
        }
        return local;
    }

    /** The GID table entry {@code gidIndex} of {@code port}, which must be in use. */
    static GidEntry lookUp(Context context, int port, int gidIndex) {
        if (gidIndex < 0) {
            throw new IllegalArgumentException("GID index must not be negative: " + gidIndex);
        }
        // Past the table the provider answers EINVAL (rxe), not "unused": name the bound instead.
        int length = context.queryPort(port).gidTableLength();
        if (gidIndex >= length) {
            throw new IllegalArgumentException("GID index " + gidIndex + " is past the GID table of " + context
                    + " port " + port + " (" + length + " entries)");
        }
        return context.gid(port, gidIndex).orElseThrow(() -> new IllegalArgumentException(
                "GID index " + gidIndex + " of " + context + " port " + port + " is not in use"));
    }

    void connect(Endpoint remote, ConnectionOptions options) {
        if (qp.lastState == QueuePairState.RESET) {
            toInit(options);
        }
        toRtr(remote, options);
        toRts(options);
    }

    /** RESET -> INIT on the port the queue pair sends from. */
    void toInit(ConnectionOptions options) {
        int port = source().port();
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            int mask = QpAttributes.init(attr, qp.type(), port, options);
            modify(attr, mask, QueuePairState.INIT);
        }
    }

    void toRtr(Endpoint remote, ConnectionOptions options) {
        Endpoint self = null;
        GidEntry from = null;
        if (qp.type() != QueuePairType.UD) {
            self = localEndpoint();
            from = source();
        }
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            int mask = QpAttributes.rtr(attr, qp.type(), self, remote, from == null ? 0 : from.port(),
                    from == null ? -1 : from.index(), options);
            modify(attr, mask, QueuePairState.RTR);
        }
    }

    void toRts(ConnectionOptions options) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            int mask = QpAttributes.rts(attr, qp.type(), psn, options);
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
        if ((no & QueuePair.NO_SEND) != 0) {
            qp.posts.extendedClaim.sendsRefused();   // after the word: SendQueueClaim's ready
        }
    }

    /** Refuses a send-queue operation other than a post (a memory window bind) before RTS. */
    void requireRts(String what) {
        QueuePairState state = qp.lastState;
        if (state == QueuePairState.RESET || state == QueuePairState.INIT || state == QueuePairState.RTR) {
            throw new IllegalStateException("cannot " + what + " through " + qp + ": it is in " + state
                    + ", which needs RTS");
        }
    }
}
