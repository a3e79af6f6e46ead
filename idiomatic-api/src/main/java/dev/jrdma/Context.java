// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.ContextQueries.checkPort;

import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
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

    private final RdmaDevice device;
    private final MemorySegment handle;
    /** False for a context librdmacm opened and keeps open (see {@link dev.jrdma.cm.CmId#context()}). */
    private final boolean owned;
    /** Reads the asynchronous events for {@link #onAsyncEvent}. */
    private final AsyncEventPump events;

    private Context(RdmaDevice device, MemorySegment handle) {
        this.device = device;
        this.handle = handle;
        this.owned = true;
        this.events = new AsyncEventPump(this, handle);
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
        this.events = new AsyncEventPump(this, handle);
    }

    static Context borrowed(MemorySegment handle, NativeResource owner) {
        return new Context(handle, owner);
    }

    static Context open(RdmaDevice device) {
        return new Context(device, Rdma.openDevice(device));
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
    @Reaches("ibv_query_device_ex")
    public DeviceAttributes queryDevice() {
        try (var _ = hold(this)) {
            return ContextQueries.device(this, handle);
        }
    }

    /**
     * {@return the device capabilities from the classic {@code ibv_query_device} alone}: what
     * {@link #queryDevice()} reports for a provider without the extended query, the fields only
     * the extended query fills (e.g. {@link DeviceAttributes#deviceCapabilityFlagsEx()}) zero. For
     * comparing against the extended answer, or for tools that must show the classic one.
     */
    @Reaches("ibv_query_device")
    public DeviceAttributes queryDeviceLegacy() {
        try (var _ = hold(this)) {
            return ContextQueries.deviceLegacy(this, handle);
        }
    }

    /**
     * {@return the attributes of port {@code port}}
     *
     * @param port the port number, counting from 1
     */
    @Reaches("ibv_query_port")
    public PortAttributes queryPort(int port) {
        checkPort(port);
        try (var _ = hold(this)) {
            return ContextQueries.port(this, handle, port);
        }
    }

    /**
     * {@return the valid entries of the GID table of {@code port}, by index; unused entries are skipped}
     *
     * @param port the port number, counting from 1
     */
    @Reaches("ibv_query_gid_table")
    public List<GidEntry> gidTable(int port) {
        checkPort(port);
        return gidTable().stream().filter(e -> e.port() == port).toList();
    }

    /** {@return the valid GID entries of every port, read in one call ({@code ibv_query_gid_table})} */
    @Reaches("ibv_query_gid_table")
    public List<GidEntry> gidTable() {
        int[] lengths = ContextQueries.gidTableLengths(this);
        try (var _ = hold(this)) {
            return ContextQueries.gidTable(this, handle, lengths.length, lengths);
        }
    }

    /**
     * {@return GID {@code index} of {@code port} as the classic {@code ibv_query_gid} reads it:
     * the GID alone, {@link Gid#ZERO} for an unused entry} {@link #gid(int, int)} also gives
     * the entry's type and network device.
     *
     * @param port  the port number, counting from 1
     * @param index the GID table index, below {@link PortAttributes#gidTableLength()}
     */
    @Reaches("ibv_query_gid")
    public Gid rawGid(int port, int index) {
        checkPort(port);
        try (var _ = hold(this)) {
            return ContextQueries.rawGid(this, handle, port, index);
        }
    }

    /**
     * {@return P_Key table entry {@code index} of {@code port}} On RoCE and on a default
     * InfiniBand subnet, entry 0 is the full-membership default partition 0xffff.
     *
     * @param port  the port number, counting from 1
     * @param index the P_Key table index
     */
    @Reaches("ibv_query_pkey")
    public int pkey(int port, int index) {
        checkPort(port);
        try (var _ = hold(this)) {
            return ContextQueries.pkey(this, handle, port, index);
        }
    }

    /**
     * {@return the P_Key table index of {@code pkey} on {@code port}, empty if the port is not
     * in that partition} The index is what a queue pair's INIT transition names.
     *
     * @param port the port number, counting from 1
     * @param pkey the partition key, e.g. 0xffff
     */
    @Reaches("ibv_get_pkey_index")
    public OptionalInt pkeyIndex(int port, int pkey) {
        checkPort(port);
        try (var _ = hold(this)) {
            return ContextQueries.pkeyIndex(handle, port, pkey & 0xffff);
        }
    }

    /**
     * {@return the device's free-running clock now, in ns ({@code raw_clock} of
     * {@code ibv_query_rt_values_ex})} Devices that stamp completions have one
     * ({@link DeviceAttributes#hcaCoreClock()} non-zero); others throw
     * {@link OperationNotSupportedException} naming the device.
     */
    @Reaches("ibv_query_rt_values_ex")
    public long rawClockNanos() {
        try (var _ = hold(this)) {
            return ContextQueries.rawClock(this, handle);
        }
    }

    /**
     * {@return whether the device offers {@code offload} on queue pairs of {@code type}}
     * Ask before creating a queue pair that needs it.
     *
     * @param offload TSO, RSS or packet pacing
     * @param type    the queue pair type
     */
    @Reaches({"ibv_query_device_ex", "ibv_is_qpt_supported"})
    public boolean supportsOffload(QueuePairOffload offload, QueuePairType type) {
        try (var _ = hold(this)) {
            return ContextQueries.supportsOffload(this, handle, offload, type);
        }
    }

    /**
     * Resolves the Ethernet next hop of a RoCE destination: the MAC address (and VLAN) that
     * packets from GID entry {@code source} to {@code destination} are sent to, from the
     * kernel's neighbour table, asking the network (ARP or neighbour discovery) when the entry
     * is not there yet; blocks meanwhile. Providers do this when creating an address handle.
     *
     * @param source      the local GID entry to send from (a RoCE port)
     * @param destination the remote GID, e.g. {@link Gid#ofIpv4}
     * @return the next hop's MAC address and VLAN
     * @throws RdmaException EHOSTUNREACH when no neighbour answers
     */
    @Reaches("ibv_resolve_eth_l2_from_gid")
    public EthernetL2Address resolveEthernetAddress(GidEntry source, Gid destination) {
        try (var _ = hold(this)) {
            return ContextQueries.resolveEthernet(this, handle, source, destination);
        }
    }

    /**
     * {@return GID table entry {@code index} of {@code port}; empty when that entry is unused}
     *
     * @param port  the port number, counting from 1
     * @param index the GID table index
     */
    @Reaches("ibv_query_gid_ex")
    public Optional<GidEntry> gid(int port, int index) {
        checkOpen();
        checkPort(port);
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            return ContextQueries.gid(this, handle, port, index, arena.allocate(ibv_gid_entry.layout()));
        }
    }

    /**
     * {@return the port a program uses when it has no reason to pick one: the lowest-numbered
     * ACTIVE port, else port {@link #FIRST_PORT}} Single-port devices (rxe, most NICs) have only
     * port 1.
     */
    public int defaultPort() {
        return DefaultGid.port(this);
    }

    /**
     * {@return the GID entry to send from on {@code port}: on RoCE the RoCE v2 entry with an
     * IPv4 address (routable wherever that address is), then other RoCE v2, then RoCE v1; on
     * InfiniBand the first entry} What a queue pair sends from unless
     * {@link QueuePair.Builder#sourceGid} chooses otherwise.
     *
     * @param port the port number, counting from 1 (e.g. {@link #defaultPort()})
     * @throws IllegalStateException when the port's GID table is empty (a RoCE interface
     *                               without any IP address, or a port that is down)
     */
    public GidEntry defaultGid(int port) {
        return DefaultGid.of(this, port);
    }

    /** {@return {@link #defaultGid(int)} of {@link #defaultPort()}} */
    public GidEntry defaultGid() {
        return defaultGid(defaultPort());
    }

    /**
     * {@return the route back to the sender of a received UD datagram ({@code ibv_init_ah_from_wc}):
     * its GID, and the local GID entry it was sent to} What
     * {@link ProtectionDomain#createAddressHandle(int, WorkCompletion, MemorySegment)} creates a
     * handle for; useful on its own to see who sent a datagram.
     *
     * @param port the port the datagram arrived at
     * @param wc   the datagram's receive completion
     * @param grh  the first 40 bytes of the datagram's receive buffer
     */
    @Reaches("ibv_init_ah_from_wc")
    public AddressVector replyAddress(int port, WorkCompletion wc, MemorySegment grh) {
        checkPort(port);
        try (var _ = hold(this)) {
            return ReplyRoutes.addressVector(this, handle, port, wc, grh);
        }
    }

    // ---- the optional verbs groups: each class says what it is and which devices refuse it ----

    /**
     * Opens an XRC domain; {@link OperationNotSupportedException} on devices without XRC
     * ({@link DeviceAttributes#supportsXrc()}).
     *
     * @param options a private domain ({@link XrcDomain.Options#PRIVATE}) or one shared through a file
     * @return the domain, owned by this context
     */
    @Reaches({"ibv_open_xrcd"})
    public XrcDomain openXrcDomain(XrcDomain.Options options) {
        checkOpen();
        return XrcDomain.open(this, java.util.Objects.requireNonNull(options, "options"));
    }

    /**
     * Allocates {@code length} bytes of device memory; {@link OperationNotSupportedException} on
     * devices without it ({@link DeviceAttributes#maxDeviceMemorySize()} 0).
     *
     * @param length the number of bytes
     * @return the memory, owned by this context
     */
    @Reaches({"ibv_alloc_dm"})
    public DeviceMemory allocateDeviceMemory(long length) {
        checkOpen();
        return DeviceMemory.allocate(this, length, 0);
    }

    /**
     * Imports device memory another process allocated on a context it shares with this one
     * ({@link #importContext(int)}).
     *
     * @param handle the memory's {@link DeviceMemory#handleNumber()}
     * @return the memory, owned by this context; closing it unimports it
     */
    @Reaches({"ibv_import_dm"})
    public DeviceMemory importDeviceMemory(int handle) {
        checkOpen();
        return DeviceMemory.importFrom(this, handle);
    }

    /** {@return a new thread domain, owned by this context; {@link OperationNotSupportedException} where the provider has none} */
    @Reaches({"ibv_alloc_td"})
    public ThreadDomain allocateThreadDomain() {
        checkOpen();
        return ThreadDomain.allocate(this);
    }

    /**
     * Allocates a parent domain: a protection domain wrapping {@code pd} and, optionally,
     * {@code threadDomain}. It is a {@link ProtectionDomain} like any other; closing it leaves
     * {@code pd} open.
     *
     * @param pd           the protection domain it wraps
     * @param threadDomain the thread domain whose resources its objects use, or null
     * @return the parent domain, owned by this context, {@code pd} and {@code threadDomain}
     */
    @Reaches({"ibv_alloc_parent_domain"})
    public ProtectionDomain allocateParentDomain(ProtectionDomain pd, ThreadDomain threadDomain) {
        checkOpen();
        return ThreadDomain.allocateParentDomain(this, java.util.Objects.requireNonNull(pd, "pd"), threadDomain);
    }

    /** {@return a new counters object, owned by this context; {@link OperationNotSupportedException} where the provider has none} */
    @Reaches({"ibv_create_counters"})
    public Counters createCounters() {
        checkOpen();
        return Counters.create(this);
    }

    /**
     * Creates an IPsec ESP flow action.
     *
     * @param esp the security association
     * @return the action, owned by this context
     */
    @Reaches({"ibv_create_flow_action_esp"})
    public EspFlowAction createEspFlowAction(EspFlowAction.Esp esp) {
        checkOpen();
        return EspFlowAction.create(this, java.util.Objects.requireNonNull(esp, "esp"));
    }

    /**
     * Creates a receive work queue ({@code IBV_WQT_RQ}).
     *
     * @param pd              the protection domain of its receive buffers
     * @param cq              where its receives complete
     * @param maxWorkRequests the most receives it holds
     * @param maxSges         the most SGEs per receive
     * @return the work queue, owned by {@code pd} and {@code cq}
     */
    @Reaches({"ibv_create_wq"})
    public WorkQueue createWorkQueue(ProtectionDomain pd, CompletionQueue cq, int maxWorkRequests, int maxSges) {
        checkOpen();
        return WorkQueue.create(this, pd, cq, maxWorkRequests, maxSges);
    }

    /**
     * Creates a receive work queue indirection table over {@code workQueues} (a power of two of them).
     *
     * @param workQueues the table's entries
     * @return the table, owned by this context and the work queues
     */
    @Reaches({"ibv_create_rwq_ind_table"})
    public RwqIndirectionTable createIndirectionTable(List<WorkQueue> workQueues) {
        checkOpen();
        return RwqIndirectionTable.create(this, List.copyOf(workQueues));
    }

    /** {@return the file descriptor of this context's device file, which another process passes to {@link #importContext(int)}} */
    public int commandFd() {
        return ibv_context.cmd_fd(handle().reinterpret(ibv_context.layout().byteSize()));
    }

    /**
     * Imports the context whose device file {@code commandFd} is (another process's
     * {@link #commandFd()}, received over a Unix socket, or this process's own): the two then
     * share protection domains, memory regions and device memory by handle
     * ({@link #importProtectionDomain(int)}). Providers that cannot import
     * ({@code import_context} missing: rxe) throw {@link OperationNotSupportedException}.
     *
     * @param commandFd an open uverbs device file descriptor
     * @return the imported context; closing it closes this process's view only
     */
    @Reaches({"ibv_import_device"})
    public static Context importContext(int commandFd) {
        MemorySegment context = Imports.importDevice(commandFd);
        return new Context(Rdma.describe(ibv_context.device(context)), context);
    }

    /**
     * Imports the protection domain another process sharing this context allocated.
     *
     * @param handle the domain's {@link ProtectionDomain#handleNumber()}
     * @return the domain, owned by this context; closing it unimports it
     */
    @Reaches({"ibv_import_pd"})
    public ProtectionDomain importProtectionDomain(int handle) {
        checkOpen();
        return ProtectionDomain.importFrom(this, handle);
    }

    /** {@return a new protection domain, owned by this context} */
    @Reaches("ibv_alloc_pd")
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
    @Reaches("ibv_create_cq")
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
    @Reaches("ibv_create_cq")
    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel) {
        checkOpen();
        channel.checkOpen();
        return CompletionQueue.create(this, depth, channel);
    }

    /**
     * Creates a completion queue whose events are steered to one of the device's completion
     * vectors ({@code comp_vector}): each vector is an interrupt (an MSI-X vector on hardware),
     * so spreading busy queues over vectors spreads their interrupts over CPUs.
     *
     * @param depth            the minimum number of completions the queue holds
     * @param channel          where its completion events go, or null for none
     * @param completionVector the vector, from 0 to {@link #completionVectors()} - 1
     * @return the new queue, owned by this context (and the channel, if any)
     * @throws IllegalArgumentException when the device has no such vector
     */
    @Reaches("ibv_create_cq")
    public CompletionQueue createCompletionQueue(int depth, CompletionChannel channel, int completionVector) {
        checkOpen();
        if (channel != null) {
            channel.checkOpen();
        }
        return CompletionQueue.create(this, depth, channel, completionVector);
    }

    /**
     * {@return how many completion vectors the device offers ({@code num_comp_vectors} of the
     * context): the values {@link #createCompletionQueue(int, CompletionChannel, int)} and
     * {@link ExtendedCompletionQueue.Builder#completionVector} accept are 0 to this minus 1}
     */
    public int completionVectors() {
        checkOpen();
        return ibv_context.num_comp_vectors(handle.reinterpret(ibv_context.layout().byteSize()));
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
    @Reaches("ibv_create_comp_channel")
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
    @Reaches({"ibv_get_async_event", "ibv_ack_async_event"})
    public void onAsyncEvent(Consumer<AsyncEvent> listener) {
        checkOpen();
        events.add(listener);
    }

    @Override
    @Reaches("ibv_close_device")
    protected void release() {
        events.stop();
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
