// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions and queue pairs work together
 * only within one PD. Closing it first closes its memory regions and queue pairs.
 *
 * <p>Thread safety: registration and QP creation are safe from several threads.
 *
 * <p>{@link #toString()}: {@code protection domain handle <n> on <device>}.
 */
public final class ProtectionDomain extends NativeObject {
    private final Context context;

    private ProtectionDomain(Context context, MemorySegment handle) {
        super(handle, "protection domain handle " + ibv_pd.handle(handle) + " on " + context.name(),
                context);
        this.context = context;
    }

    // Stub-provider seam, for tests and benchmarks in this package only: wraps a fake native object
    // that a test library built (no device, no libibverbs call). Never close the result: release()
    // would hand the fake to libibverbs.
    static ProtectionDomain overStubProvider(Context context, MemorySegment handle) {
        return new ProtectionDomain(context, handle);
    }

    static ProtectionDomain allocate(Context context) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            // @start region="errno-capture"
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment pd = ErrnoVerbs.ibv_alloc_pd(errno, context.handle());
            if (pd.address() == 0) {
                throw RdmaException.of(Verb.IBV_ALLOC_PD, context, Errno.get(errno));
            }
            // @end
            return wrapCreated(pd, ibv_pd.layout(), h -> new ProtectionDomain(context, h), rdma_h::ibv_dealloc_pd);
        }
    }

    /** {@return the context this PD belongs to} */
    public Context context() {
        return context;
    }

    /**
     * Waits until no post is inside any queue pair or shared receive queue of this domain: a
     * memory region or address handle of the domain, already marked closed so that new posts
     * refuse it, may then be destroyed without a post still reading it (inline data is copied
     * from the region's pages, a UD send reads its address handle).
     */
    void awaitPostsQuiescent() {
        for (NativeResource r : dependents()) {
            if (r instanceof QueuePair || r instanceof SharedReceiveQueue) {
                r.awaitQuiescent();
            }
        }
    }

    /**
     * Registers memory the caller owns, with local write access only ({@link Access#DEFAULT}).
     *
     * @param segment native memory of an arena that outlives the region
     * @return the region, owned by this PD
     * @see #register(MemorySegment, Set)
     */
    public MemoryRegion register(MemorySegment segment) {
        return register(segment, Access.DEFAULT);
    }

    /**
     * Registers memory the caller owns. The segment must be native (heap memory can move) and
     * its arena alive. The memory region must not outlive the arena: the region checks the
     * arena before every use and throws {@link IllegalStateException} once it is closed, but
     * the device keeps the pages pinned until the region is closed, so close the region before
     * the arena. {@link #register(MemorySegment, Arena, Set)} does that automatically.
     *
     * @param segment native memory of an arena that outlives the region
     * @param access  the rights of the device and of peers ({@link Access#DEFAULT}: local write only)
     * @return the region, owned by this PD
     * @throws IllegalArgumentException for heap memory or inconsistent rights
     * @throws IllegalStateException when the segment's arena is closed
     */
    public MemoryRegion register(MemorySegment segment, Set<Access> access) {
        checkOpen();
        return MemoryRegion.register(this, segment, access, null);
    }

    /**
     * Registers memory the caller owns and ties the region to {@code arena}, the arena that
     * allocated {@code segment}: closing the arena deregisters the region before the memory is
     * freed. The arena must be one that is closed explicitly (confined or shared); must be
     * called from the arena's owner thread if it is confined.
     *
     * @param segment native memory allocated by {@code arena}
     * @param arena   the arena whose closing deregisters the region
     * @param access  the rights of the device and of peers
     * @return the region, owned by this PD and tied to {@code arena}
     */
    public MemoryRegion register(MemorySegment segment, Arena arena, Set<Access> access) {
        checkOpen();
        return MemoryRegion.register(this, segment, access, arena);
    }

    /**
     * Allocates {@code size} bytes of page-aligned, zeroed native memory and registers it. The
     * memory belongs to the region: closing the region deregisters and then frees it.
     *
     * @param size   the number of bytes
     * @param access the rights of the device and of peers
     * @return the region, owned by this PD
     */
    public MemoryRegion allocate(long size, Set<Access> access) {
        checkOpen();
        return MemoryRegion.allocate(this, size, access);
    }

    /**
     * As {@link #allocate(long, Set)} with local write access only.
     *
     * @param size the number of bytes
     * @return the region, owned by this PD
     */
    public MemoryRegion allocate(long size) {
        return allocate(size, Access.DEFAULT);
    }

    /**
     * Starts building a queue pair in this PD.
     *
     * @param type the transport: RC, UC or UD
     * @return a builder; {@link QueuePair.Builder#build()} creates the queue pair
     */
    public QueuePair.Builder queuePair(QueuePairType type) {
        checkOpen();
        return new QueuePair.Builder(this, type);
    }

    /**
     * Allocates a type 1 memory window; {@link OperationNotSupportedException} when the
     * provider has none.
     *
     * @return the window, unbound, owned by this PD
     */
    @Reaches("ibv_alloc_mw")
    public MemoryWindow allocateMemoryWindow() {
        return allocateMemoryWindow(MemoryWindowType.TYPE_1);
    }

    /**
     * Allocates a memory window of {@code type}; {@link OperationNotSupportedException} when the
     * provider has none (or none of that type).
     *
     * @param type type 1 (bound with {@link QueuePair#bind}) or type 2 (bound with a
     *             {@link SendOpcode#BIND_MW} work request)
     * @return the window, unbound, owned by this PD
     */
    @Reaches("ibv_alloc_mw")
    public MemoryWindow allocateMemoryWindow(MemoryWindowType type) {
        checkOpen();
        return MemoryWindow.allocate(this, java.util.Objects.requireNonNull(type, "type"));
    }

    /**
     * Creates a shared receive queue.
     *
     * @param maxWorkRequests the most receives it holds
     * @param maxSges         the most SGEs per receive
     * @return the queue, owned by this PD
     */
    public SharedReceiveQueue createSharedReceiveQueue(int maxWorkRequests, int maxSges) {
        checkOpen();
        return SharedReceiveQueue.create(this, maxWorkRequests, maxSges);
    }

    /**
     * Creates an address handle for UD sends to {@code remote}, leaving through {@code port}
     * with source GID table entry {@code gidIndex} (hop limit 64).
     *
     * @param remote   the destination's endpoint (its QPN is given per send)
     * @param port     the local port, counting from 1
     * @param gidIndex the source GID table entry
     * @return the handle, owned by this PD
     */
    public AddressHandle createAddressHandle(Endpoint remote, int port, int gidIndex) {
        return createAddressHandle(remote, port, gidIndex, ConnectionOptions.DEFAULTS);
    }

    /**
     * Creates an address handle for UD sends to {@code remote}, leaving through {@code port}
     * with source GID table entry {@code gidIndex}, and the hop limit, service level and
     * traffic class of {@code options} (its other fields do not apply to an address handle).
     *
     * @param remote   the destination's endpoint (its QPN is given per send)
     * @param port     the local port, counting from 1
     * @param gidIndex the source GID table entry
     * @param options  hop limit, service level and traffic class
     * @return the handle, owned by this PD
     */
    public AddressHandle createAddressHandle(Endpoint remote, int port, int gidIndex, ConnectionOptions options) {
        checkOpen();
        return AddressHandle.create(this, remote, port, gidIndex, java.util.Objects.requireNonNull(options, "options"));
    }

    /**
     * Creates an address handle for UD sends to multicast group {@code group} (with remote QPN
     * {@link MulticastGroup#QPN}), leaving from GID entry {@code source} with hop limit 64.
     *
     * @param group  the group
     * @param source the local GID entry to send from (on RoCE, of the group's IP family)
     * @return the handle, owned by this PD
     */
    public AddressHandle createAddressHandle(MulticastGroup group, GidEntry source) {
        return createAddressHandle(group.endpoint(), source.port(), source.index());
    }

    /**
     * Creates an address handle back to the sender of a received UD datagram: the route comes
     * from its completion and its GRH, so a server can answer anyone without learning their
     * endpoints first. Reply to {@link WorkCompletion#sourceQpNumber()} with the Q_Key the
     * sender uses. Datagrams sent to a multicast group have no such route (RdmaException, EINVAL).
     *
     * @param port the port the datagram arrived at
     * @param wc   the datagram's receive completion (successful; read before it is reused)
     * @param grh  the first 40 bytes of the datagram's receive buffer
     * @return the handle, owned by this PD
     */
    @Reaches("ibv_create_ah_from_wc")
    public AddressHandle createAddressHandle(int port, WorkCompletion wc, MemorySegment grh) {
        checkOpen();
        return AddressHandle.toSender(this, port, wc, grh);
    }

    @Override
    void release() {
        RdmaException.check(Verb.IBV_DEALLOC_PD, this, rdma_h.ibv_dealloc_pd(handle));
    }
}
