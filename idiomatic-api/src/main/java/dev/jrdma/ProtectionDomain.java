// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.bindings.shim.ImportVerbs;
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
@Reaches({"ibv_unimport_pd"})   // close() reaches them
public final class ProtectionDomain extends NativeObject {
    private final Context context;
    /** Imported from another process ({@link Context#importProtectionDomain}): closing unimports it. */
    private final boolean imported;

    private ProtectionDomain(Context context, MemorySegment handle) {
        super(handle, "protection domain handle " + ibv_pd.handle(handle) + " on " + context.name(),
                context);
        this.context = context;
        this.imported = false;
    }

    private ProtectionDomain(Context context, MemorySegment handle, String kind, boolean imported,
                             NativeResource... owners) {
        super(handle, kind + " handle " + ibv_pd.handle(handle) + " on " + context.name(), owners);
        this.context = context;
        this.imported = imported;
    }

    /** A parent domain ibv_alloc_parent_domain returned (see {@link ThreadDomain#allocateParentDomain}). */
    static ProtectionDomain parentDomain(Context context, MemorySegment handle, ProtectionDomain pd, ThreadDomain td) {
        return new ProtectionDomain(context, handle, "parent domain", false, context, pd, td);
    }

    static ProtectionDomain importFrom(Context context, int pdHandle) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment pd = ImportVerbs.ibv_import_pd(errno, context.handle(), pdHandle);
            RdmaException.checkCreated(Verb.IBV_IMPORT_PD, context + ", handle " + pdHandle, errno, pd,
                    context, "importing protection domains");
            return wrapCreated(pd, ibv_pd.layout(),
                    h -> new ProtectionDomain(context, h, "imported protection domain", true, context),
                    rdma_h::ibv_unimport_pd);
        }
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
    @Reaches("ibv_reg_mr_iova2")
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
    // ibv_reg_mr is a macro over __ibv_reg_mr, which calls ibv_reg_mr_iova2 with the address as
    // the iova: the call this method makes.
    @Reaches({"ibv_reg_mr", "ibv_reg_mr_iova2"})
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
    @Reaches("ibv_reg_mr_iova2")
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
    @Reaches("ibv_reg_mr_iova2")
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
    @Reaches("ibv_reg_mr_iova2")
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
    @Reaches("ibv_create_srq")
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
    @Reaches("ibv_create_ah")
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
    @Reaches("ibv_create_ah")
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

    /** {@return the kernel's handle of this domain, which another process sharing the context imports ({@link Context#importProtectionDomain})} */
    public int handleNumber() {
        return ibv_pd.handle(handle());
    }

    /** {@return a builder for a shared receive queue with extended attributes (a CQ, XRC, tag matching)} */
    public SharedReceiveQueue.Builder sharedReceiveQueue() {
        checkOpen();
        return new SharedReceiveQueue.Builder(this);
    }

    /**
     * Creates an XRC initiator QP ({@code IBV_QPT_XRC_SEND}): it sends to the XRC SRQs of a
     * remote {@link XrcDomain}. {@link OperationNotSupportedException} on devices without XRC.
     *
     * @param cq                  where its sends complete
     * @param maxSendWorkRequests outstanding sends
     * @param maxSges             SGEs per send
     * @return the queue pair, owned by this PD and {@code cq}
     */
    @Reaches({"ibv_create_qp_ex"})
    public XrcQueuePair createXrcSendQueuePair(CompletionQueue cq, int maxSendWorkRequests, int maxSges) {
        checkOpen();
        return XrcQueuePair.createInitiator(this, cq, maxSendWorkRequests, maxSges);
    }

    /**
     * Registers memory the caller owns so that the device knows it by {@code iova} rather than by
     * its virtual address: local SGEs and peers address it from {@code iova} on
     * ({@link MemoryRegion#address()} returns it), e.g. to give peers offsets from 0.
     *
     * @param segment native memory of an arena that outlives the region
     * @param iova    the address the device knows the first byte by
     * @param access  the rights of the device and of peers
     * @return the region, owned by this PD
     */
    @Reaches({"ibv_reg_mr_iova", "ibv_reg_mr_iova2"})
    public MemoryRegion register(MemorySegment segment, long iova, Set<Access> access) {
        checkOpen();
        return MemoryRegion.register(this, segment, iova, access);
    }

    /**
     * Registers {@code length} bytes of the dmabuf {@code fd} (GPU or accelerator memory
     * exported by its driver) from {@code offset}, for peer-to-peer RDMA; providers without
     * dmabuf support (rxe) throw {@link OperationNotSupportedException}.
     *
     * @param fd     the dmabuf file descriptor
     * @param offset where the region starts in the dmabuf
     * @param length the number of bytes
     * @param iova   the address the device knows the first byte by
     * @param access the rights of the device and of peers
     * @return the region, owned by this PD
     */
    @Reaches({"ibv_reg_dmabuf_mr"})
    public UnmappedMemoryRegion registerDmabuf(int fd, long offset, long length, long iova, Set<Access> access) {
        checkOpen();
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ImportVerbs.ibv_reg_dmabuf_mr(errno, handle, offset, length, iova, fd, Access.flags(access));
            RdmaException.checkCreated(Verb.IBV_REG_DMABUF_MR, this + ", dmabuf fd " + fd + ", " + length + " bytes",
                    errno, mr, context, "dmabuf memory regions");
            return wrapCreated(mr, ibv_mr.layout(), h -> new UnmappedMemoryRegion(this, h, "dmabuf memory region", false),
                    rdma_h::ibv_dereg_mr);
        }
    }

    /**
     * Allocates the null memory region: writes through its lkey are discarded and reads return
     * zeros, e.g. to drop the part of a message nobody needs. Providers without it (rxe) throw
     * {@link OperationNotSupportedException}.
     *
     * @return the region, owned by this PD
     */
    @Reaches({"ibv_alloc_null_mr"})
    public UnmappedMemoryRegion allocateNullMemoryRegion() {
        checkOpen();
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ExtensionVerbs.ibv_alloc_null_mr(errno, handle);
            RdmaException.checkCreated(Verb.IBV_ALLOC_NULL_MR, this, errno, mr, context, "the null memory region");
            return wrapCreated(mr, ibv_mr.layout(), h -> new UnmappedMemoryRegion(this, h, "null memory region", false),
                    rdma_h::ibv_dereg_mr);
        }
    }

    /**
     * Imports the memory region another process sharing this context (and this domain,
     * {@link Context#importProtectionDomain}) registered.
     *
     * @param mrHandle the region's handle in the exporting process
     * @return the region, owned by this PD; closing it unimports it
     */
    @Reaches({"ibv_import_mr"})
    public UnmappedMemoryRegion importMemoryRegion(int mrHandle) {
        checkOpen();
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ImportVerbs.ibv_import_mr(errno, handle, mrHandle);
            RdmaException.checkCreated(Verb.IBV_IMPORT_MR, this + ", handle " + mrHandle, errno, mr,
                    context, "importing memory regions");
            return wrapCreated(mr, ibv_mr.layout(), h -> new UnmappedMemoryRegion(this, h, "imported memory region", true),
                    rdma_h::ibv_unimport_mr);
        }
    }

    /** Deallocates the domain, or unimports it; reaches {@code ibv_dealloc_pd} or {@code ibv_unimport_pd}. */
    @Override
    @Reaches("ibv_dealloc_pd")
    protected void release() {
        if (imported) {
            rdma_h.ibv_unimport_pd(handle);
            return;
        }
        RdmaException.check(Verb.IBV_DEALLOC_PD, this, rdma_h.ibv_dealloc_pd(handle));
    }
}
