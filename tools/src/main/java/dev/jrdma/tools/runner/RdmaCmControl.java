// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WaitStrategy;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.ConnectionRequest;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestProtocolException;
import dev.jrdma.tools.perftest.RdmaCmLink;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.locks.LockSupport;

/**
 * perftest's -R control channel on the device: one RC QP that rdma_cm connects on the -p port
 * before anything else ({@code rdma_client_connect} / {@code rdma_server_connect} on perftest's
 * comm context), over which every message of the session travels as one SEND. perftest posts one
 * receive of {@code sizeof(struct pingpong_dest)} (56 bytes) and re-posts it after each message,
 * and the exchange is lock-step, so one message is in flight each way at a time; this side keeps
 * two receives posted and sends each message from its own buffer, signalled.
 *
 * <p>The id's protection domain, completion queues and buffer live on the context rdma_cm
 * resolved and are closed with the id ({@link #close()}).
 */
final class RdmaCmControl implements RdmaCmLink {
    /** Room for the largest message, the key record. */
    private static final int SLOT = Math.max(64, PeerInfo.RDMA_CM_SIZE);
    private static final int RECEIVES = 2;
    /**
     * How the control waits idle between empty polls: a short busy spin, then 50 us sleeps (the
     * control messages are few and not timed; a sleep leaves the core to the peer's side when
     * both run on one machine). The measurement loops busy-poll instead ({@link Completions#IDLE}).
     */
    private static final WaitStrategy IDLE = WaitStrategy.backoff(2_000, 0, Duration.ofNanos(50_000L),
            Duration.ofNanos(50_000L));

    private final CmId id;
    private final boolean client;
    private final Duration timeout;
    private final QueuePair qp;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final MemoryRegion buffer;
    private final WorkCompletion wc = new WorkCompletion();
    private boolean closed;

    private RdmaCmControl(CmId id, boolean client, Duration timeout) {
        this.id = id;
        this.client = client;
        this.timeout = timeout;
        ProtectionDomain pd = id.context().allocateProtectionDomain();
        sendCq = id.context().createCompletionQueue(2);
        recvCq = id.context().createCompletionQueue(RECEIVES);
        qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).sendCompletionQueue(sendCq)
                .receiveCompletionQueue(recvCq).maxWorkRequests(1, RECEIVES).maxSges(1, 1));
        buffer = pd.allocate((long) SLOT * (1 + RECEIVES), EnumSet.of(Access.LOCAL_WRITE));
        // Posted before connect/accept, as perftest does: the peer's first message may follow at once.
        for (int i = 0; i < RECEIVES; i++) {
            qp.post(receive(i));
        }
    }

    private ReceiveRequest receive(int slot) {
        return new ReceiveRequest().wrId(slot).sge(buffer, (long) SLOT * (1 + slot), SLOT);
    }

    /**
     * Client: resolves the server's address and route, creates the control QP and connects. A
     * server that is not listening yet rejects the request; like perftest's retry loop this
     * tries again (every 100 ms) until {@code timeout} has passed.
     */
    static RdmaCmControl connect(CmEventChannel events, InetSocketAddress server, Duration timeout) throws IOException {
        return connectRetrying(events, server, timeout, id -> new RdmaCmControl(id, true, timeout),
                "rdma_cm control connection to " + server + " failed within " + RdmaTimeoutException.plain(timeout)
                        + " (is the server running with -R?)");
    }

    /** What a client makes on a resolved id before it connects: the QP and its resources. */
    interface OnResolved<T> {
        T prepare(CmId id) throws IOException;
    }

    /**
     * perftest's client retry loop: resolve the address and route, {@code onResolved}, connect;
     * a rejected or failed attempt closes the id (with what was made for it) and is tried again
     * every 100 ms until {@code timeout} has passed, then fails with an RdmaTimeoutException
     * whose message is {@code failure} and the last error.
     */
    static <T> T connectRetrying(CmEventChannel events, InetSocketAddress server, Duration timeout,
                                 OnResolved<T> onResolved, String failure) throws IOException {
        return connectRetrying(events, server, timeout, id -> { }, onResolved, failure);
    }

    /**
     * {@link #connectRetrying(CmEventChannel, InetSocketAddress, Duration, OnResolved, String)}
     * with {@code beforeRoute} called on each id once its address is resolved, before its route
     * is (an option the route depends on, such as -T's type of service, is set there).
     */
    static <T> T connectRetrying(CmEventChannel events, InetSocketAddress server, Duration timeout,
                                 java.util.function.Consumer<CmId> beforeRoute, OnResolved<T> onResolved,
                                 String failure) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            CmId id = events.createId();
            try {
                id.resolveAddress(server, timeout);
                beforeRoute.accept(id);
                id.resolveRoute(timeout);
                T made = onResolved.prepare(id);
                id.connect(new byte[0], timeout);
                return made;
            } catch (RdmaException | IllegalStateException e) {
                id.close();
                if (System.nanoTime() - deadline > 0) {
                    throw new RdmaTimeoutException(timeout, failure + ": " + e.getMessage(), e);
                }
                LockSupport.parkNanos(100_000_000L);
            }
        }
    }

    /** Server: takes the next connect request on {@code listener}, creates the control QP and accepts. */
    static RdmaCmControl accept(CmId listener, Duration timeout) throws IOException {
        ConnectionRequest request;
        try {
            request = listener.awaitConnectRequest(timeout);
        } catch (RdmaTimeoutException e) {
            throw new RdmaTimeoutException(timeout, "accept: no rdma_cm client connected within "
                    + RdmaTimeoutException.plain(timeout), e);
        }
        CmId id = request.id();
        try {
            RdmaCmControl control = new RdmaCmControl(id, false, timeout);
            id.accept(new byte[0], timeout);
            return control;
        } catch (RuntimeException e) {
            id.close();
            String message = "accept: the rdma_cm control connection failed: " + e.getMessage();
            if (e instanceof RdmaTimeoutException t) {
                throw new RdmaTimeoutException(t.timeout(), message, e);
            }
            throw new PerftestProtocolException(message, e);
        }
    }

    @Override
    public boolean isClient() {
        return client;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public void send(String step, byte[] message) throws IOException {
        if (message.length > SLOT) {
            throw new IllegalArgumentException(step + ": a " + message.length + "-byte message does not fit " + SLOT);
        }
        MemorySegment.copy(message, 0, buffer.segment(), ValueLayout.JAVA_BYTE, 0, message.length);
        try {
            qp.post(new SendRequest().wrId(-1).sge(buffer, 0, message.length));
        } catch (RuntimeException e) {
            throw new PerftestProtocolException(step + ": posting the control SEND failed: " + e.getMessage(), e);
        }
        if (!await(sendCq, System.nanoTime() + timeout.toNanos())) {
            throw new RdmaTimeoutException(timeout, step + ": the control SEND did not complete within "
                    + RdmaTimeoutException.plain(timeout) + " (peer gone?)", null);
        }
        if (!wc.isSuccess()) {
            throw new PerftestProtocolException(step + ": the control SEND failed with " + wc.status()
                    + " (the peer's control QP is gone or out of step)");
        }
    }

    @Override
    public byte[] receive(String step, int length) throws IOException {
        if (!await(recvCq, System.nanoTime() + timeout.toNanos())) {
            throw new RdmaTimeoutException(timeout, step + ": no message from the peer within "
                    + RdmaTimeoutException.plain(timeout)
                    + " (peer gone, or not in step: do both sides run the same test with the same -a, -b, -D and -q?)", null);
        }
        return take(step, length);
    }

    /**
     * A bounded wait when the peer's run has a known length; otherwise as long as the control
     * connection lives: a peer whose process ends has its ids destroyed by the kernel, which
     * disconnects and ends this wait with DISCONNECTED.
     */
    @Override
    public byte[] receiveAfterPeerRun(String step, int length, Duration limit) throws IOException {
        if (limit != null) {
            if (!await(recvCq, System.nanoTime() + limit.toNanos())) {
                throw new RdmaTimeoutException(limit, step + ": the peer did not finish its run within "
                        + RdmaTimeoutException.plain(limit) + " (peer stopped, or not in step)", null);
            }
            return take(step, length);
        }
        while (!await(recvCq, System.nanoTime() + 1_000_000_000L)) {
            boolean disconnected;
            try {
                // Long enough for the channel to read a pending event (it rounds to whole ms).
                id.awaitDisconnect(Duration.ofMillis(100));
                disconnected = true;
            } catch (RdmaTimeoutException quiet) {
                disconnected = false;   // no rdma_cm event: the connection stands
            } catch (RdmaException other) {
                throw new PerftestProtocolException(step + ": the control connection failed while the peer ran: "
                        + other.getMessage(), other);
            }
            if (disconnected) {
                throw new PerftestProtocolException(step + ": the peer disconnected before finishing its run"
                        + " (it ended or was killed)");
            }
        }
        return take(step, length);
    }

    private byte[] take(String step, int length) throws IOException {
        if (!wc.isSuccess()) {
            throw new PerftestProtocolException(step + ": the control receive failed with " + wc.status());
        }
        int slot = (int) wc.wrId();
        if (wc.byteLength() != length) {
            throw new PerftestProtocolException(step + ": expected a " + length + "-byte message, got "
                    + wc.byteLength() + " (peer not in step: do both sides run the same test with the same options?)");
        }
        byte[] m = buffer.segment().asSlice((long) SLOT * (1 + slot), length).toArray(ValueLayout.JAVA_BYTE);
        qp.post(receive(slot));
        return m;
    }

    /** Polls {@code cq} into {@link #wc} until the deadline, idling as {@link #IDLE} says between polls. */
    private boolean await(CompletionQueue cq, long deadline) {
        int empty = 0;
        while (cq.poll(wc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            empty = empty == Integer.MAX_VALUE ? empty : empty + 1;
            IDLE.idle(empty);
        }
        return true;
    }

    /** Destroys the control id with its QP, CQs, buffer and PD (the peer sees a disconnect). */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            id.close();
        }
    }
}
