// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_async_event;
import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.ibv_device_attr;
import dev.jrdma.bindings.generated.ibv_cq_moderation_caps;
import dev.jrdma.bindings.generated.ibv_device_attr_ex;
import dev.jrdma.bindings.generated.ibv_tso_caps;
import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.generated.ibv_odp_caps;
import dev.jrdma.bindings.generated.ibv_port_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.Posix;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An open device ({@code struct ibv_context}), from {@link RdmaDevice#open()}. The root of the
 * ownership graph: closing it closes every protection domain, completion queue, memory region
 * and queue pair created from it.
 *
 * <p>Thread safety: queries and resource creation are safe from several threads; see
 * {@link NativeResource} for closing.
 */
public final class Context extends NativeResource {
    /** The number of a device's first port: ports count from 1. */
    public static final int FIRST_PORT = 1;

    /** How often the event thread looks at the close flag while no event arrives. */
    private static final long EVENT_POLL_MILLIS = 100;

    private final RdmaDevice device;
    private final MemorySegment handle;
    /** False for a context librdmacm opened and keeps open (see {@link CmId#context()}). */
    private final boolean owned;
    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();
    private Thread eventThread;
    private volatile boolean stopEvents;

    private Context(RdmaDevice device, MemorySegment handle) {
        this.device = device;
        this.handle = handle;
        this.owned = true;
    }

    // Stub-provider seam, for tests and benchmarks in this package only: wraps a fake native object
    // that a test library built (no device, no libibverbs call). Never close the result: release()
    // would hand the fake to libibverbs.
    static Context overStubProvider(RdmaDevice device, MemorySegment handle) {
        return new Context(device, handle);
    }

    /** A view of a context librdmacm opened, depending on {@code owner}; closing it leaves the device open. */
    private Context(MemorySegment handle, NativeResource owner) {
        super(owner);
        MemorySegment c = handle.reinterpret(ibv_context.layout().byteSize());
        this.device = Rdma.describe(ibv_context.device(c));
        this.handle = handle;
        this.owned = false;
    }

    static Context borrowed(MemorySegment handle, NativeResource owner) {
        return new Context(handle, owner);
    }

    static Context open(RdmaDevice device) {
        MemorySegment handle = Rdma.withDeviceList(list -> {
            for (MemorySegment d : list) {
                if (Rdma.deviceName(d).equals(device.name())) {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment errno = Errno.allocate(arena);
                        // The context stays valid after the device list is freed (ibv_open_device(3)).
                        MemorySegment context = ErrnoVerbs.ibv_open_device(errno, d);
                        if (context.address() == 0) {
                            throw RdmaException.of(Verb.IBV_OPEN_DEVICE, "device " + device.name(), Errno.get(errno));
                        }
                        return context;
                    }
                }
            }
            throw new IllegalStateException("device " + device.name() + " is no longer present; devices: "
                    + list.stream().map(Rdma::deviceName).toList());
        });
        return new Context(device, handle);
    }

    /** {@return the device this context was opened on} */
    public RdmaDevice device() {
        return device;
    }

    /** {@return the device name (e.g. {@code rxe0})} */
    public String name() {
        return device.name();
    }

    MemorySegment handle() {
        checkOpen();
        return handle;
    }

    /** {@return the device capabilities, including fields only the extended query reports} */
    public DeviceAttributes queryDevice() {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment ex = arena.allocate(ibv_device_attr_ex.layout());
            RdmaException.check(Verb.IBV_QUERY_DEVICE_EX, this,
                    InlineVerbs.ibv_query_device_ex(handle, MemorySegment.NULL, ex));
            MemorySegment a = ibv_device_attr_ex.orig_attr(ex);
            return new DeviceAttributes(ibv_device_attr.fw_ver(a).getString(0),
                    Long.reverseBytes(ibv_device_attr.node_guid(a)), Long.reverseBytes(ibv_device_attr.sys_image_guid(a)),
                    ibv_device_attr.max_mr_size(a), ibv_device_attr.page_size_cap(a), ibv_device_attr.vendor_id(a),
                    ibv_device_attr.vendor_part_id(a), ibv_device_attr.hw_ver(a), ibv_device_attr.max_qp(a),
                    ibv_device_attr.max_qp_wr(a), ibv_device_attr.max_sge(a), ibv_device_attr.max_cq(a),
                    ibv_device_attr.max_cqe(a), ibv_device_attr.max_mr(a), ibv_device_attr.max_pd(a),
                    ibv_device_attr.max_qp_rd_atom(a), ibv_device_attr.max_qp_init_rd_atom(a),
                    ibv_device_attr.max_srq(a), ibv_device_attr.max_ah(a), ibv_device_attr.max_mw(a),
                    AtomicCapability.of(ibv_device_attr.atomic_cap(a)), Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(a)),
                    ibv_device_attr.device_cap_flags(a), ibv_device_attr_ex.device_cap_flags_ex(ex),
                    ibv_device_attr_ex.completion_timestamp_mask(ex), ibv_device_attr_ex.hca_core_clock(ex),
                    ibv_odp_caps.general_caps(ibv_device_attr_ex.odp_caps(ex)), ibv_device_attr_ex.max_dm_size(ex),
                    Short.toUnsignedInt(ibv_cq_moderation_caps.max_cq_count(ibv_device_attr_ex.cq_mod_caps(ex))),
                    Short.toUnsignedInt(ibv_cq_moderation_caps.max_cq_period(ibv_device_attr_ex.cq_mod_caps(ex))),
                    ibv_tso_caps.max_tso(ibv_device_attr_ex.tso_caps(ex)));
        }
    }

    /**
     * {@return the attributes of port {@code port}}
     *
     * @param port the port number, counting from 1
     */
    public PortAttributes queryPort(int port) {
        checkPort(port);
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment p = arena.allocate(ibv_port_attr.layout());
            RdmaException.check(Verb.IBV_QUERY_PORT, this + " port " + port, InlineVerbs.ibv_query_port(handle, port, p));
            return new PortAttributes(port, PortState.of(ibv_port_attr.state(p)), Mtu.of(ibv_port_attr.max_mtu(p)),
                    Mtu.of(ibv_port_attr.active_mtu(p)), Short.toUnsignedInt(ibv_port_attr.lid(p)),
                    Short.toUnsignedInt(ibv_port_attr.sm_lid(p)), ibv_port_attr.gid_tbl_len(p),
                    LinkLayer.of(Byte.toUnsignedInt(ibv_port_attr.link_layer(p))),
                    Byte.toUnsignedInt(ibv_port_attr.active_speed(p)), Byte.toUnsignedInt(ibv_port_attr.active_width(p)),
                    Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(p)), Byte.toUnsignedInt(ibv_port_attr.phys_state(p)));
        }
    }

    /**
     * {@return the valid entries of the GID table of {@code port}, by index; unused entries are skipped}
     *
     * @param port the port number, counting from 1
     */
    public List<GidEntry> gidTable(int port) {
        int length = queryPort(port).gidTableLength();
        List<GidEntry> entries = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment entry = arena.allocate(ibv_gid_entry.layout());
            for (int i = 0; i < length; i++) {
                queryGid(port, i, entry).ifPresent(entries::add);
            }
        }
        return List.copyOf(entries);
    }

    /**
     * {@return GID table entry {@code index} of {@code port}; empty when that entry is unused}
     *
     * @param port  the port number, counting from 1
     * @param index the GID table index
     */
    public Optional<GidEntry> gid(int port, int index) {
        checkOpen();
        checkPort(port);
        try (Arena arena = Arena.ofConfined()) {
            return queryGid(port, index, arena.allocate(ibv_gid_entry.layout()));
        }
    }

    /**
     * {@return the port a program uses when it has no reason to pick one: the lowest-numbered
     * ACTIVE port, else port {@link #FIRST_PORT}} Single-port devices (rxe, most NICs) have only
     * port 1.
     */
    public int defaultPort() {
        int ports = queryDevice().physicalPortCount();
        for (int port = FIRST_PORT; port <= ports; port++) {
            if (queryPort(port).state() == PortState.ACTIVE) {
                return port;
            }
        }
        return FIRST_PORT;
    }

    /**
     * {@return the GID entry to send from on {@code port}: on RoCE the RoCE v2 entry with an
     * IPv4 address (routable wherever that address is), then other RoCE v2, then RoCE v1; on
     * InfiniBand the first entry} Pass its {@link GidEntry#port()} and {@link GidEntry#index()}
     * to {@link QueuePair#localEndpoint(int, int)}.
     *
     * @param port the port number, counting from 1 (e.g. {@link #defaultPort()})
     * @throws IllegalStateException when the port's GID table is empty (a RoCE interface
     *                               without any IP address, or a port that is down)
     */
    public GidEntry defaultGid(int port) {
        PortAttributes attributes = queryPort(port);
        return DefaultGid.choose(gidTable(port), attributes.linkLayer()).orElseThrow(() -> new IllegalStateException(
                "no GID on " + name() + " port " + port + " (" + attributes.state()
                        + "); on RoCE, does its network interface have an IP address?"));
    }

    /** {@return {@link #defaultGid(int)} of {@link #defaultPort()}} */
    public GidEntry defaultGid() {
        return defaultGid(defaultPort());
    }

    private Optional<GidEntry> queryGid(int port, int index, MemorySegment entry) {
        int rc;
        try (var _ = hold(this)) {
            rc = InlineVerbs.ibv_query_gid_ex(handle, port, index, entry, 0);
        }
        if (rc == Errno.ENODATA) {
            return Optional.empty();
        }
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_QUERY_GID_EX, this + " port " + port + " index " + index, rc);
        }
        Gid gid = Gid.read(ibv_gid_entry.gid(entry));
        if (gid.equals(Gid.ZERO)) {
            return Optional.empty();
        }
        return Optional.of(new GidEntry(ibv_gid_entry.gid_index(entry), ibv_gid_entry.port_num(entry), gid,
                GidType.of(ibv_gid_entry.gid_type(entry)), ibv_gid_entry.ndev_ifindex(entry)));
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, not " + port);
        }
    }

    /** {@return a new protection domain, owned by this context} */
    public ProtectionDomain allocateProtectionDomain() {
        checkOpen();
        return ProtectionDomain.allocate(this);
    }

    /**
     * Creates a completion queue with room for at least {@code depth} completions.
     *
     * @param depth the minimum number of completions the queue holds
     * @return the new queue, owned by this context
     */
    public CompletionQueue createCompletionQueue(int depth) {
        checkOpen();
        return CompletionQueue.create(this, depth, null);
    }

    /**
     * Creates a completion queue whose notifications go to {@code channel}; closing the
     * channel closes the queue first.
     *
     * @param depth   the minimum number of completions the queue holds
     * @param channel where its completion events go
     * @return the new queue, owned by this context and the channel
     */
    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
        checkOpen();
        channel.checkOpen();
        return CompletionQueue.create(this, depth, channel);
    }

    /**
     * Builds an extended completion queue ({@code ibv_create_cq_ex}), which reports only the
     * fields chosen and is read with start/next/end poll; see {@link ExtendedCompletionQueue}.
     *
     * @param depth the minimum number of completions it must hold
     * @return the builder
     */
    public ExtendedCompletionQueue.Builder extendedCompletionQueue(int depth) {
        checkOpen();
        return new ExtendedCompletionQueue.Builder(this, depth);
    }

    /** {@return a new completion channel, to wait for completions without spinning} */
    public CompletionChannel createCompletionChannel() {
        checkOpen();
        return CompletionChannel.create(this);
    }

    /**
     * Delivers this device's asynchronous events (port state changes, QP and CQ errors, ...) to
     * {@code listener}, on a daemon thread of this context that starts with the first listener
     * and stops when the context closes. Events are acknowledged before the listeners run, so a
     * listener may close the objects an event names (or the whole context). Listeners run one
     * at a time and should return promptly. An exception from a listener is logged and does not
     * stop delivery.
     *
     * @param listener called with each event
     */
    public void onAsyncEvent(Consumer<AsyncEvent> listener) {
        checkOpen();
        listeners.add(listener);
        synchronized (listeners) {
            if (eventThread == null) {
                eventThread = Thread.ofPlatform().daemon().name("jrdma-async-events-" + device.name())
                        .start(this::deliverEvents);
            }
        }
    }

    private void deliverEvents() {
        int fd = ibv_context.async_fd(handle.reinterpret(ibv_context.layout().byteSize()));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment event = arena.allocate(ibv_async_event.layout());
            while (!stopEvents) {
                // ibv_get_async_event blocks without a timeout: wait for the fd first, so that
                // closing the context can stop this thread within EVENT_POLL_MILLIS.
                if (!Posix.awaitReadable(fd, EVENT_POLL_MILLIS)) {
                    continue;
                }
                if (ErrnoVerbs.ibv_get_async_event(errno, handle, event) != 0) {
                    continue;   // another reader took it, or EINTR
                }
                AsyncEvent e;
                try {
                    e = describe(event);
                } finally {
                    // Acknowledge before the listeners run: the event is already resolved to
                    // Java objects, and an unacknowledged event would make closing its QP/CQ/SRQ
                    // (say, from a listener) wait forever in ibv_destroy_*.
                    rdma_h.ibv_ack_async_event(event);
                }
                Events.async(this, e);
                for (Consumer<AsyncEvent> listener : listeners) {
                    try {
                        listener.accept(e);
                    } catch (RuntimeException failure) {
                        System.getLogger(Context.class.getName()).log(System.Logger.Level.WARNING,
                                "async event listener failed on " + e, failure);
                    }
                }
            }
        }
    }

    private AsyncEvent describe(MemorySegment event) {
        AsyncEventType type = AsyncEventType.of(ibv_async_event.event_type(event));
        MemorySegment element = ibv_async_event.element(event);
        return switch (type) {
            case CQ_ERR -> new AsyncEvent(type, find(CompletionQueue.class,
                    ibv_async_event.element.cq(element).address()), 0);
            case SRQ_ERR, SRQ_LIMIT_REACHED -> new AsyncEvent(type, find(SharedReceiveQueue.class,
                    ibv_async_event.element.srq(element).address()), 0);
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                    new AsyncEvent(type, null, ibv_async_event.element.port_num(element));
            case DEVICE_FATAL, WQ_FATAL, UNKNOWN -> new AsyncEvent(type, null, 0);
            default -> new AsyncEvent(type, find(QueuePair.class, ibv_async_event.element.qp(element).address()), 0);
        };
    }

    /** The open object of {@code type} at native address {@code address}, searched through the graph. */
    private NativeResource find(Class<? extends NativeResource> type, long address) {
        List<NativeResource> pending = new ArrayList<>(dependents());
        while (!pending.isEmpty()) {
            NativeResource r = pending.removeLast();
            if (type.isInstance(r) && r.nativeAddress() == address) {
                return r;
            }
            pending.addAll(r.dependents());
        }
        return null;
    }

    @Override
    void release() {
        Thread events;
        synchronized (listeners) {
            stopEvents = true;
            events = eventThread;
        }
        if (events != null && events != Thread.currentThread()) {
            // The thread must be out of ibv_get_async_event before the context goes away.
            boolean interrupted = false;
            while (events.isAlive()) {
                try {
                    events.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (!owned) {
            return;   // librdmacm opened it and closes it itself
        }
        RdmaException.check(Verb.IBV_CLOSE_DEVICE, this, rdma_h.ibv_close_device(handle));
    }

    /** {@code context <device name>}. */
    @Override
    public String toString() {
        return "context " + device.name();
    }
}
