// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.jrdma.Context;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.RdmaException;
import dev.jrdma.Reaches;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.ibv_ece;
import dev.jrdma.bindings.generated.rdma_addr;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.generated.rdma_route;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.Timeouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * An rdma_cm connection id ({@code struct rdma_cm_id}): the rdma_cm counterpart of a socket.
 * Client: {@link #resolveAddress}, {@link #resolveRoute}, {@link #createQueuePair},
 * {@link #connect}. Server: {@link #bind}, {@link #listen}, {@link #awaitConnectRequest}, then
 * on the new id {@link #createQueuePair} and {@link #accept}. rdma_cm moves the queue pair
 * through its states, unless the application drives its own queue pair
 * ({@link ExternalQueuePair#of}). Datagram
 * ids ({@link CmEventChannel#createDatagramId}) resolve a UD peer ({@link #connectDatagram}) or
 * join multicast groups ({@link MulticastJoin#join}). Every wait is bounded by a timeout.
 *
 * <p>The device is the one librdmacm resolved: {@link #context()} is a view of librdmacm's own
 * context, on which the protection domain, completion queues and memory regions for this
 * connection are created; they are closed with the id. Not thread-safe.
 */
public final class CmId extends CmResource {
    /** Where this id's events arrive; another channel after {@link #migrate}. */
    private volatile CmEventChannel channel;
    private final MemorySegment handle;
    /** How the id goes: rdma_destroy_ep for ids of the endpoint API, else rdma_destroy_id. */
    private final boolean endpoint;
    private Context context;
    private RdmaVerbs verbs;

    private CmId(CmEventChannel channel, MemorySegment handle, boolean endpoint) {
        // The channel becomes the owner last: a close() of the channel from another thread would
        // otherwise find this id among its dependents before its fields are set, and release it
        // with a null handle.
        this.channel = channel;
        this.endpoint = endpoint;
        this.handle = handle.reinterpret(rdma_cm_id.layout().byteSize());
        channel.register(this, handle.address());
        try {
            CORE.dependOn(lifetime, channel.lifetime);
        } catch (RuntimeException e) {
            channel.unregister(handle.address());
            throw e;
        }
    }

    static CmId create(CmEventChannel channel, int portSpace) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            if (RdmaCmVerbs.rdma_create_id(errno, channel.handle(), out, MemorySegment.NULL, portSpace) != 0) {
                throw CORE.exception(Verb.RDMA_CREATE_ID, channel, Errno.get(errno));
            }
            return adopt(channel, out.get(ADDRESS, 0));
        }
    }

    /** Wraps an id librdmacm created (a connect request's), destroying it if wrapping fails. */
    static CmId adopt(CmEventChannel channel, MemorySegment id) {
        return adopt(channel, id, false);
    }

    /** As {@link #adopt(CmEventChannel, MemorySegment)}; {@code endpoint}: an id of the endpoint API. */
    static CmId adopt(CmEventChannel channel, MemorySegment id, boolean endpoint) {
        try {
            return new CmId(channel, id, endpoint);
        } catch (RuntimeException e) {
            try (Arena arena = Arena.ofConfined()) {
                if (endpoint) {
                    rdma_h.rdma_destroy_ep(id);
                } else {
                    RdmaCmVerbs.rdma_destroy_id(Errno.allocate(arena), id);
                }
            }
            throw e;
        }
    }

    /** The channel this id's events arrive on now. */
    CmEventChannel channel() {
        return channel;
    }

    MemorySegment handle() {
        checkOpen();
        return handle;
    }

    /** The handle without the open check: for releasing dependents while this id closes. */
    MemorySegment rawHandle() {
        return handle;
    }

    /** An rdma_cm verb on an id: 0, or -1 and errno in {@code errno}; {@code arena} holds its arguments. */
    @FunctionalInterface
    interface Call {
        int on(Arena arena, MemorySegment errno);
    }

    /** Makes {@code call} while holding this id, throwing {@code verb}'s RdmaException if it fails. */
    void call(Verb verb, Call call) {
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(lifetime)) {
            MemorySegment errno = Errno.allocate(arena);
            check(call.on(arena, errno), verb, errno);
        }
    }

    void check(int rc, Verb verb, MemorySegment errno) {
        if (rc != 0) {
            throw CORE.exception(verb, this, Errno.get(errno));
        }
    }

    CmEventChannel.Event expect(CmEventType expected, Duration timeout, Verb verb) {
        return expect(expected, timeout, verb, verb.toString());
    }

    /** Waits for {@code expected}; another event fails {@code verb}, described as {@code what}. */
    CmEventChannel.Event expect(CmEventType expected, Duration timeout, Verb verb, String what) {
        CmEventChannel.Event event = channel.await(this, handle.address(), timeout, what);
        if (event.type() != expected) {
            throw CORE.exception(what + " on " + this + " failed: rdma_cm reported " + event.type() + " ("
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
        call(Verb.RDMA_RESOLVE_ADDR, (arena, errno) ->
                RdmaCmVerbs.rdma_resolve_addr(errno, handle, MemorySegment.NULL,
                        SocketAddresses.encode(arena, destination), Timeouts.millis(timeout)));
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
        call(Verb.RDMA_RESOLVE_ROUTE, (arena, errno) ->
                RdmaCmVerbs.rdma_resolve_route(errno, handle, Timeouts.millis(timeout)));
        expect(CmEventType.ROUTE_RESOLVED, timeout, Verb.RDMA_RESOLVE_ROUTE);
    }

    /**
     * Binds the id to a local address (port 0: any free port, see {@link #localPort()}).
     *
     * @param local the local IP address (the wildcard address for all devices) and port
     */
    @Reaches("rdma_bind_addr")
    public void bind(InetSocketAddress local) {
        call(Verb.RDMA_BIND_ADDR, (arena, errno) ->
                RdmaCmVerbs.rdma_bind_addr(errno, handle, SocketAddresses.encode(arena, local)));
    }

    /** {@return the local port the id is bound to} */
    @Reaches("rdma_get_src_port")
    public int localPort() {
        try (var _ = CORE.hold(lifetime)) {
            return Short.toUnsignedInt(Short.reverseBytes(rdma_h.rdma_get_src_port(handle)));
        }
    }

    /**
     * {@return the local address and port of the id}: the bound address, or after
     * {@link #resolveAddress} the source address rdma_cm chose; null before either
     */
    @Reaches({"rdma_get_local_addr", "rdma_get_src_port"})
    public InetSocketAddress localAddress() {
        try (var _ = CORE.hold(lifetime)) {
            // rdma_get_local_addr is static inline: &id->route.addr.src_addr.
            return SocketAddresses.withPort(rdma_addr.src_addr(rdma_route.addr(rdma_cm_id.route(handle))),
                    rdma_h.rdma_get_src_port(handle));
        }
    }

    /**
     * {@return the peer's address and port}: the resolved destination of a client id, the
     * client's address on a connect request's id; null before either
     */
    @Reaches({"rdma_get_peer_addr", "rdma_get_dst_port"})
    public InetSocketAddress peerAddress() {
        try (var _ = CORE.hold(lifetime)) {
            // rdma_get_peer_addr is static inline: &id->route.addr.dst_addr.
            return SocketAddresses.withPort(rdma_addr.dst_addr(rdma_route.addr(rdma_cm_id.route(handle))),
                    rdma_h.rdma_get_dst_port(handle));
        }
    }

    /**
     * Sets an option of the id ({@code rdma_set_option}), e.g.
     * {@code id.setOption(CmOption.TYPE_OF_SERVICE, 32)}.
     *
     * @param option the option
     * @param value  its value
     * @param <T>    the option's value type
     * @throws RdmaException if rdma_cm refuses the option (the errno says why)
     */
    @Reaches("rdma_set_option")
    public <T> void setOption(CmOption<T> option, T value) {
        option.set(this, value);
    }

    /**
     * Moves this id to another event channel ({@code rdma_migrate_id}): its events, also those
     * not yet taken, arrive there from now on, and closing that channel closes the id. Not while
     * another thread waits for an event of this id.
     *
     * @param target the channel to move to
     */
    @Reaches("rdma_migrate_id")
    public void migrate(CmEventChannel target) {
        CmEventChannel from = channel;
        if (target == from) {
            return;
        }
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(lifetime, from.lifetime, target.lifetime)) {
            MemorySegment errno = Errno.allocate(arena);
            // Registered first: the old channel's reader may be about to hand this id an event.
            target.register(this, handle.address(), List.of());
            if (RdmaCmVerbs.rdma_migrate_id(errno, handle, target.handle()) != 0) {
                target.unregister(handle.address());
                throw CORE.exception(Verb.RDMA_MIGRATE_ID, this, Errno.get(errno), "to " + target);
            }
            // The kernel moved the unread events; those the old channel read but nobody took follow.
            target.register(this, handle.address(), from.unregisterMigrating(handle.address()));
            channel = target;
            CORE.moveOwner(lifetime, from.lifetime, target.lifetime);
        }
    }

    /**
     * Listens for connect requests on the bound address.
     *
     * @param backlog how many connect requests may wait to be taken
     */
    @Reaches("rdma_listen")
    public void listen(int backlog) {
        call(Verb.RDMA_LISTEN, (arena, errno) -> RdmaCmVerbs.rdma_listen(errno, handle, backlog));
    }

    /**
     * Waits for the next connect request to this listening id.
     *
     * @param timeout how long to wait
     * @return the request: a new id for the connection and the client's private data
     * @throws RdmaException if no request arrives in time or another event comes first
     */
    @Reaches({"rdma_get_cm_event", "rdma_ack_cm_event", "rdma_get_request"})
    public ConnectionRequest awaitConnectRequest(Duration timeout) {
        checkOpen();
        if (endpoint && rdma_cm_id.channel(handle).address() != channel.handle().address()) {
            return CmEndpoints.getRequest(this, timeout);
        }
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
            try (var _ = CORE.hold(lifetime)) {
                verbs = rdma_cm_id.verbs(handle);
            }
            if (verbs.address() == 0) {
                throw new IllegalStateException(this + " has no device yet: resolve an address first");
            }
            context = CORE.borrowedContext(verbs, lifetime);
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
    @Reaches({"rdma_create_qp", "rdma_destroy_qp"})
    public QueuePair createQueuePair(QueuePair.Builder builder) {
        checkOpen();
        return CmCreators.createQueuePair(this, context, builder);
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
        call(Verb.RDMA_CONNECT, (arena, errno) ->
                RdmaCmVerbs.rdma_connect(errno, handle, CmParams.connParam(arena, privateData, null)));
        CmEventChannel.Event event = expect(CmEventType.ESTABLISHED, timeout, Verb.RDMA_CONNECT);
        refreshQueuePair();
        CORE.connectionEvent(true, toString(), queuePair());
        return event.privateData();
    }

    /**
     * Accepts this connect request's connection (waits for ESTABLISHED; on a datagram id it
     * answers the peer's resolution and returns).
     *
     * @param privateData sent with the reply
     * @param timeout     how long to wait for ESTABLISHED
     */
    @Reaches("rdma_accept")
    public void accept(byte[] privateData, Duration timeout) {
        call(Verb.RDMA_ACCEPT, (arena, errno) ->
                RdmaCmVerbs.rdma_accept(errno, handle, CmParams.connParam(arena, privateData, null)));
        if (CmDatagrams.isDatagram(this)) {
            return;   // UD (SIDR): the reply carries the QPN and Q_Key; no ESTABLISHED follows here
        }
        expect(CmEventType.ESTABLISHED, timeout, Verb.RDMA_ACCEPT);
        refreshQueuePair();
        CORE.connectionEvent(true, toString(), queuePair());
    }

    /**
     * Rejects this connect request.
     *
     * @param privateData sent with the rejection, for the peer to read
     */
    @Reaches("rdma_reject")
    public void reject(byte[] privateData) {
        call(Verb.RDMA_REJECT, (arena, errno) -> {
            MemorySegment data = CmParams.privateData(arena, privateData);
            return RdmaCmVerbs.rdma_reject(errno, handle, data, (byte) privateData.length);
        });
    }

    /**
     * Disconnects and waits for DISCONNECTED; the queue pair moves to ERR.
     *
     * @param timeout how long to wait for DISCONNECTED
     */
    @Reaches("rdma_disconnect")
    public void disconnect(Duration timeout) {
        call(Verb.RDMA_DISCONNECT, (arena, errno) -> RdmaCmVerbs.rdma_disconnect(errno, handle));
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
        CORE.connectionEvent(false, toString(), queuePair());
    }

    /** The queue pair created on this id, or null. */
    QueuePair queuePair() {
        return CmCreators.dependent(CORE.dependents(lifetime), QueuePair.class);
    }

    private void refreshQueuePair() {
        QueuePair qp = queuePair();
        if (qp != null) {
            CORE.refreshState(qp);
        }
    }

    /**
     * Resolves the UD peer a datagram id's route leads to (waits for ESTABLISHED): rdma_cm asks
     * the listening datagram id at the destination for its QPN and Q_Key (SIDR) and builds the
     * address vector. Create this id's UD queue pair first: the peer learns its QPN.
     *
     * @param privateData sent with the request
     * @param timeout     how long to wait
     * @return the peer's QPN, Q_Key and address vector
     */
    @Reaches("rdma_connect")
    public DatagramPeer connectDatagram(byte[] privateData, Duration timeout) {
        return CmDatagrams.connect(this, privateData, timeout);
    }

    /**
     * Creates a shared receive queue for this id ({@code rdma_create_srq}): queue pairs created
     * on the id afterwards take their receives from it, and {@link RdmaVerbs#postReceive} posts
     * to it. Closing it (or the id) destroys it ({@code rdma_destroy_srq}).
     *
     * @param pd              a protection domain of {@link #context()}
     * @param maxWorkRequests receives it holds
     * @param maxSges         SGEs per receive
     * @return the shared receive queue, owned by this id and {@code pd}
     */
    @Reaches({"rdma_create_srq", "rdma_destroy_srq"})
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionDomain pd, int maxWorkRequests, int maxSges) {
        if (pd.context() != context()) {
            throw new IllegalArgumentException(pd + " must come from " + this + ".context()");
        }
        return CmCreators.createSharedReceiveQueue(this, pd, maxWorkRequests, maxSges);
    }

    /** {@return rdma_verbs.h's helpers over this id's queue pair} */
    public RdmaVerbs verbs() {
        checkOpen();
        if (verbs == null) {
            verbs = new RdmaVerbs(this);
        }
        return verbs;
    }

    /** The shared receive queue created on this id, or null. */
    SharedReceiveQueue sharedReceiveQueue() {
        return CmCreators.dependent(CORE.dependents(lifetime), SharedReceiveQueue.class);
    }

    @Override
    void closing() {
        channel.wakeWaiters();   // a thread waiting for this id's event leaves, and close() can go on
    }

    @Reaches("rdma_destroy_id")
    @Override
    void release() {
        channel.unregister(handle.address());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            if (endpoint) {
                rdma_h.rdma_destroy_ep(handle);   // also destroys an SRQ or QP rdma_cm still holds
            } else if (RdmaCmVerbs.rdma_destroy_id(errno, handle) != 0) {
                throw CORE.exception(Verb.RDMA_DESTROY_ID, this, Errno.get(errno));
            }
        }
    }

    /** {@code rdma_cm id 0x<address>}. */
    @Override
    public String toString() {
        return "rdma_cm id 0x" + Long.toHexString(handle.address());
    }
}
