// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_conn_param;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * An rdma_cm connection id ({@code struct rdma_cm_id}): the rdma_cm counterpart of a socket.
 * Client: {@link #resolveAddress}, {@link #resolveRoute}, {@link #createQueuePair},
 * {@link #connect}. Server: {@link #bind}, {@link #listen}, {@link #awaitConnectRequest}, then
 * on the new id {@link #createQueuePair} and {@link #accept}. rdma_cm moves the queue pair
 * through its states. Every wait is bounded by a timeout. IPv4 addresses only.
 *
 * <p>The device is the one librdmacm resolved: {@link #context()} is a view of librdmacm's own
 * context, on which the protection domain, completion queues and memory regions for this
 * connection are created; they are closed with the id. Not thread-safe.
 */
public final class CmId extends NativeResource {
    private static final int MAX_PRIVATE_DATA = 56;

    private final CmEventChannel channel;
    private final MemorySegment handle;
    private Context context;

    private CmId(CmEventChannel channel, MemorySegment handle) {
        // The channel becomes the owner last: a close() of the channel from another thread would
        // otherwise find this id among its dependents before its fields are set, and release it
        // with a null handle.
        this.channel = channel;
        this.handle = handle.reinterpret(rdma_cm_id.layout().byteSize());
        channel.register(this, handle.address());
        try {
            dependOn(channel);
        } catch (RuntimeException e) {
            channel.unregister(handle.address());
            throw e;
        }
    }

    static CmId create(CmEventChannel channel) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            if (RdmaCmVerbs.rdma_create_id(errno, channel.handle(), out, MemorySegment.NULL, rdma_h.RDMA_PS_TCP())
                    != 0) {
                throw RdmaException.of(Verb.RDMA_CREATE_ID, channel, Errno.get(errno));
            }
            return adopt(channel, out.get(ADDRESS, 0));
        }
    }

    /** Wraps an id librdmacm created (a connect request's), destroying it if wrapping fails. */
    static CmId adopt(CmEventChannel channel, MemorySegment id) {
        try {
            return new CmId(channel, id);
        } catch (RuntimeException e) {
            try (Arena arena = Arena.ofConfined()) {
                RdmaCmVerbs.rdma_destroy_id(Errno.allocate(arena), id);
            }
            throw e;
        }
    }

    MemorySegment handle() {
        checkOpen();
        return handle;
    }

    /** The handle without the open check: for releasing dependents while this id closes. */
    MemorySegment rawHandle() {
        return handle;
    }

    private void check(int rc, Verb verb, MemorySegment errno) {
        if (rc != 0) {
            throw RdmaException.of(verb, this, Errno.get(errno));
        }
    }

    private CmEventChannel.Event expect(CmEventType expected, Duration timeout, Verb verb) {
        return expect(expected, timeout, verb, verb.toString());
    }

    /** Waits for {@code expected}; another event fails {@code verb}, described as {@code what}. */
    private CmEventChannel.Event expect(CmEventType expected, Duration timeout, Verb verb, String what) {
        CmEventChannel.Event event = channel.await(this, handle.address(), timeout, what);
        if (event.type() != expected) {
            throw new RdmaException(what + " on " + this + " failed: rdma_cm reported " + event.type() + " ("
                    + event.type().description() + ", status " + event.status() + ") instead of " + expected,
                    verb, toString(), Math.abs(event.status()));
        }
        return event;
    }

    /**
     * Resolves {@code destination} to a local device and port (waits for ADDR_RESOLVED).
     *
     * @param destination the peer's IP address and rdma_cm port
     * @param timeout     the bound of the resolution and of the wait for its event
     * @throws RdmaException if rdma_cm fails or reports another event (e.g. ADDR_ERROR)
     */
    @Reaches("rdma_resolve_addr")
    public void resolveAddress(InetSocketAddress destination, Duration timeout) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_resolve_addr(errno, handle, MemorySegment.NULL, sockaddr(arena, destination),
                    timeoutMillis(timeout)), Verb.RDMA_RESOLVE_ADDR, errno);
        }
        expect(CmEventType.ADDR_RESOLVED, timeout, Verb.RDMA_RESOLVE_ADDR);
    }

    /**
     * Resolves the route to the destination (waits for ROUTE_RESOLVED).
     *
     * @param timeout the bound of the resolution and of the wait for its event
     * @throws RdmaException if rdma_cm fails or reports another event (e.g. ROUTE_ERROR)
     */
    @Reaches("rdma_resolve_route")
    public void resolveRoute(Duration timeout) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_resolve_route(errno, handle, timeoutMillis(timeout)), Verb.RDMA_RESOLVE_ROUTE, errno);
        }
        expect(CmEventType.ROUTE_RESOLVED, timeout, Verb.RDMA_RESOLVE_ROUTE);
    }

    /**
     * Binds the id to a local address (port 0: any free port, see {@link #localPort()}).
     *
     * @param local the local IP address (the wildcard address for all devices) and port
     */
    @Reaches("rdma_bind_addr")
    public void bind(InetSocketAddress local) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_bind_addr(errno, handle, sockaddr(arena, local)), Verb.RDMA_BIND_ADDR, errno);
        }
    }

    /** {@return the local port the id is bound to} */
    @Reaches("rdma_get_src_port")
    public int localPort() {
        try (var _ = hold(this)) {
            return Short.toUnsignedInt(Short.reverseBytes(rdma_h.rdma_get_src_port(handle)));
        }
    }

    /**
     * Listens for connect requests on the bound address.
     *
     * @param backlog how many connect requests may wait to be taken
     */
    @Reaches("rdma_listen")
    public void listen(int backlog) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_listen(errno, handle, backlog), Verb.RDMA_LISTEN, errno);
        }
    }

    /**
     * Waits for the next connect request to this listening id.
     *
     * @param timeout how long to wait
     * @return the request: a new id for the connection and the client's private data
     * @throws RdmaException if no request arrives in time or another event comes first
     */
    @Reaches({"rdma_get_cm_event", "rdma_ack_cm_event"})
    public ConnectionRequest awaitConnectRequest(Duration timeout) {
        checkOpen();
        CmEventChannel.Event event = expect(CmEventType.CONNECT_REQUEST, timeout, Verb.RDMA_GET_CM_EVENT,
                "awaiting a connect request");
        return new ConnectionRequest(event.newId(), event.privateData());
    }

    /**
     * The context of the device this id is bound to (after {@link #resolveAddress}, or for
     * the id of a connect request): a view of librdmacm's context, closed with this id.
     *
     * @return the device context rdma_cm chose
     */
    public Context context() {
        if (context == null || context.isClosed()) {
            MemorySegment verbs;
            try (var _ = hold(this)) {
                verbs = rdma_cm_id.verbs(handle);
            }
            if (verbs.address() == 0) {
                throw new IllegalStateException(this + " has no device yet: resolve an address first");
            }
            context = Context.borrowed(verbs, this);
        }
        return context;
    }

    /**
     * Creates this id's queue pair (RC) with {@code rdma_create_qp}, from a builder on a
     * protection domain of {@link #context()}; rdma_cm moves it to RTS on connect/accept.
     *
     * @param builder the queue pair's capabilities and completion queues
     * @return the new queue pair, owned by this id
     */
    @Reaches("rdma_create_qp")
    public QueuePair createQueuePair(QueuePair.Builder builder) {
        checkOpen();
        if (builder.protectionDomain().context() != context) {
            throw new IllegalArgumentException("the protection domain must come from " + this + ".context()");
        }
        return builder.build(this);
    }

    /**
     * Connects (waits for ESTABLISHED) after the address and route are resolved.
     *
     * @param privateData sent with the connect request (at most 56 bytes on RC)
     * @param timeout     how long to wait for ESTABLISHED
     * @return the private data of the peer's reply
     * @throws RdmaException on a rejection (REJECTED, with the peer's status) or another event
     */
    @Reaches("rdma_connect")
    public byte[] connect(byte[] privateData, Duration timeout) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_connect(errno, handle, connParam(arena, privateData)), Verb.RDMA_CONNECT, errno);
        }
        CmEventChannel.Event event = expect(CmEventType.ESTABLISHED, timeout, Verb.RDMA_CONNECT);
        refreshQueuePair();
        Events.cmConnection(true, toString(), queuePair());
        return event.privateData();
    }

    /**
     * Accepts this connect request's connection (waits for ESTABLISHED).
     *
     * @param privateData sent with the reply
     * @param timeout     how long to wait for ESTABLISHED
     */
    @Reaches("rdma_accept")
    public void accept(byte[] privateData, Duration timeout) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_accept(errno, handle, connParam(arena, privateData)), Verb.RDMA_ACCEPT, errno);
        }
        expect(CmEventType.ESTABLISHED, timeout, Verb.RDMA_ACCEPT);
        refreshQueuePair();
        Events.cmConnection(true, toString(), queuePair());
    }

    /**
     * Rejects this connect request.
     *
     * @param privateData sent with the rejection, for the peer to read
     */
    @Reaches("rdma_reject")
    public void reject(byte[] privateData) {
        checkPrivateData(privateData);
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment data = privateData.length == 0 ? MemorySegment.NULL
                    : arena.allocateFrom(JAVA_BYTE, privateData);
            check(RdmaCmVerbs.rdma_reject(errno, handle, data, (byte) privateData.length), Verb.RDMA_REJECT, errno);
        }
    }

    /**
     * Disconnects and waits for DISCONNECTED; the queue pair moves to ERR.
     *
     * @param timeout how long to wait for DISCONNECTED
     */
    @Reaches("rdma_disconnect")
    public void disconnect(Duration timeout) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            check(RdmaCmVerbs.rdma_disconnect(errno, handle), Verb.RDMA_DISCONNECT, errno);
        }
        awaitDisconnect(timeout);
    }

    /**
     * Waits for the peer (or a local {@code disconnect}) to end the connection.
     *
     * @param timeout how long to wait for DISCONNECTED
     */
    @Reaches({"rdma_get_cm_event", "rdma_ack_cm_event"})
    public void awaitDisconnect(Duration timeout) {
        checkOpen();
        expect(CmEventType.DISCONNECTED, timeout, Verb.RDMA_GET_CM_EVENT, "awaiting DISCONNECTED");
        refreshQueuePair();
        Events.cmConnection(false, toString(), queuePair());
    }

    /** The queue pair created on this id, or null. */
    private QueuePair queuePair() {
        for (NativeResource r : dependents()) {
            if (r instanceof QueuePair qp) {
                return qp;
            }
        }
        return null;
    }

    private void refreshQueuePair() {
        for (NativeResource r : dependents()) {
            if (r instanceof QueuePair qp) {
                qp.refreshState();
            }
        }
    }

    private static void checkPrivateData(byte[] privateData) {
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data is limited to " + MAX_PRIVATE_DATA + " bytes here, not "
                    + privateData.length);
        }
    }

    private static MemorySegment connParam(Arena arena, byte[] privateData) {
        checkPrivateData(privateData);
        MemorySegment param = arena.allocate(rdma_conn_param.layout());
        if (privateData.length > 0) {
            rdma_conn_param.private_data(param, arena.allocateFrom(JAVA_BYTE, privateData));
            rdma_conn_param.private_data_len(param, (byte) privateData.length);
        }
        // One outstanding RDMA READ/atomic each way and full retries, as ConnectionOptions.DEFAULTS.
        rdma_conn_param.responder_resources(param, (byte) 1);
        rdma_conn_param.initiator_depth(param, (byte) 1);
        rdma_conn_param.retry_count(param, (byte) 7);
        rdma_conn_param.rnr_retry_count(param, (byte) 7);
        return param;
    }

    /** A {@code struct sockaddr_in}: family in host order, port and address in network order. */
    private static MemorySegment sockaddr(Arena arena, InetSocketAddress address) {
        if (!(address.getAddress() instanceof Inet4Address ipv4)) {
            throw new IllegalArgumentException("only IPv4 addresses are supported, not " + address);
        }
        MemorySegment sin = arena.allocate(16, 4);
        sin.set(JAVA_SHORT, 0, (short) rdma_h.AF_INET());
        sin.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) address.getPort());
        MemorySegment.copy(ipv4.getAddress(), 0, sin, JAVA_BYTE, 4, 4);
        return sin;
    }

    private static int timeoutMillis(Duration timeout) {
        long millis = timeout.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException("the timeout must be positive: " + timeout);
        }
        return (int) Math.min(Integer.MAX_VALUE, millis);
    }

    @Override
    void closing() {
        channel.wakeWaiters();   // a thread waiting for this id's event leaves, and close() can go on
    }

    @Override
    @Reaches("rdma_destroy_id")
    void release() {
        channel.unregister(handle.address());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            if (RdmaCmVerbs.rdma_destroy_id(errno, handle) != 0) {
                throw RdmaException.of(Verb.RDMA_DESTROY_ID, this, Errno.get(errno));
            }
        }
    }

    /** {@code rdma_cm id 0x<address>}. */
    @Override
    public String toString() {
        return "rdma_cm id 0x" + Long.toHexString(handle.address());
    }
}
