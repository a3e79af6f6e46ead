// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.bindings.shim.ImportVerbs;
import dev.jrdma.internal.Libc;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Registered memory ({@code struct ibv_mr}): native memory the device may access, with an
 * lkey for local work requests and an rkey peers use to reach it.
 *
 * <p>Either the region owns its memory ({@link ProtectionDomain#allocate}) and frees it when
 * closed, or the caller does ({@link ProtectionDomain#register}); then every use checks that
 * the segment's arena is still alive and throws {@link IllegalStateException} if it is not.
 *
 * <p>Thread safety: the accessors are safe from any thread.
 */
public final class MemoryRegion extends NativeResource {
    private static final MemorySegment.Scope GLOBAL = Arena.global().scope();
    private final ProtectionDomain pd;
    private final MemorySegment handle;
    private final MemorySegment segment;
    /** The arena this region allocated and frees, or null when the caller owns the memory. */
    private final Arena ownArena;
    /** Changed only by {@link #reregister}. */
    private volatile Set<Access> access;
    /** The address the device knows the first byte by: the segment's, unless registered at a chosen iova. */
    private final long iova;
    private final int lkey;
    private final int rkey;

    private MemoryRegion(ProtectionDomain pd, MemorySegment handle, MemorySegment segment, Arena ownArena,
                         Set<Access> access) {
        this(pd, handle, segment, ownArena, access, segment.address());
    }

    private MemoryRegion(ProtectionDomain pd, MemorySegment handle, MemorySegment segment, Arena ownArena,
                         Set<Access> access, long iova) {
        super(pd);
        this.iova = iova;
        this.pd = pd;
        this.handle = handle;
        this.segment = segment;
        this.ownArena = ownArena;
        this.access = access;
        this.lkey = ibv_mr.lkey(handle);
        this.rkey = ibv_mr.rkey(handle);
    }

    // Stub-provider seam, for tests and benchmarks in this package only: wraps a fake native object
    // that a test library built (no device, no libibverbs call). Never close the result: release()
    // would hand the fake to libibverbs.
    static MemoryRegion overStubProvider(ProtectionDomain pd, MemorySegment handle, MemorySegment segment) {
        return new MemoryRegion(pd, handle, segment, null, Access.DEFAULT);
    }

    static MemoryRegion register(ProtectionDomain pd, MemorySegment segment, Set<Access> access, Arena tieTo) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("cannot register a heap segment: the garbage collector moves heap"
                    + " memory, allocate it from an Arena (or use ProtectionDomain.allocate)");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("cannot register a segment whose arena is already closed");
        }
        if (tieTo != null && !tieTo.scope().equals(segment.scope())) {
            throw new IllegalArgumentException("the segment was not allocated by the given arena");
        }
        MemoryRegion mr = create(pd, segment, access, null, segment.address());
        if (tieTo != null) {
            try {
                // Cleanup actions of an arena run before the memory it allocated earlier is
                // freed (last registered, first run), so the region is deregistered while its
                // pages still belong to us.
                MemorySegment.NULL.reinterpret(tieTo, ignored -> mr.closeQuietly());
            } catch (RuntimeException e) {
                mr.close();
                throw e;
            }
        }
        return mr;
    }

    static MemoryRegion allocate(ProtectionDomain pd, long size, Set<Access> access) {
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive, not " + size);
        }
        // Shared: a region may be closed from any thread, and the arena goes with it.
        Arena arena = Arena.ofShared();
        try {
            MemorySegment segment;
            try {
                segment = arena.allocate(size, Libc.PAGE_SIZE);
            } catch (OutOfMemoryError e) {
                // Not the JVM running out: a native allocation of a size the caller chose.
                throw new IllegalArgumentException("cannot allocate " + size + " bytes (" + (size >> 20) + " MiB) of native"
                        + " memory for a memory region: " + e.getMessage(), e);
            }
            return create(pd, segment, access, arena, segment.address());
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Registration at a chosen iova ({@link ProtectionDomain#register(MemorySegment, long, Set)}); the caller owns the memory. */
    static MemoryRegion register(ProtectionDomain pd, MemorySegment segment, long iova, Set<Access> access) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException("cannot register a heap segment: the garbage collector moves heap"
                    + " memory, allocate it from an Arena (or use ProtectionDomain.allocate)");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("cannot register a segment whose arena is already closed");
        }
        return create(pd, segment, access, null, iova);
    }

    private static MemoryRegion create(ProtectionDomain pd, MemorySegment segment, Set<Access> access,
                                       Arena ownArena, long iova) {
        Set<Access> rights = access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access);
        if ((rights.contains(Access.REMOTE_WRITE) || rights.contains(Access.REMOTE_ATOMIC))
                && !rights.contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (" + rights + ")");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        if (rights.contains(Access.ON_DEMAND)) {
            checkOnDemandPaging(pd, segment, rights);
        }
        Events.Registration timing = Events.beginRegistration();
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ErrnoVerbs.ibv_reg_mr_iova2(errno, pd.handle(), segment, segment.byteSize(), iova,
                    Access.flags(rights));
            if (mr.address() == 0) {
                int e = Errno.get(errno);
                String hint = e == Errno.ENOMEM || e == Errno.EPERM
                        ? "registration pins " + segment.byteSize() + " bytes; RLIMIT_MEMLOCK (ulimit -l) may be"
                                + " too low for that (raise it, or run with CAP_IPC_LOCK)"
                        : null;
                throw RdmaException.of(Verb.IBV_REG_MR, pd + ", " + segment.byteSize() + " bytes at 0x"
                        + Long.toHexString(segment.address()) + ", " + rights, e, hint);
            }
            return wrapCreated(mr, ibv_mr.layout(), h -> {
                MemoryRegion region = new MemoryRegion(pd, h, segment, ownArena, Collections.unmodifiableSet(rights), iova);
                Events.registered(timing, region, segment.byteSize(), rights);
                return region;
            }, rdma_h::ibv_dereg_mr);
        }
    }

    MemorySegment handle() {
        checkUsable();
        return handle;
    }

    /** Throws {@link IllegalStateException} if the region is closed or its memory is gone. */
    void checkUsable() {
        checkOpen();
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("the arena of the memory of " + this + " was closed before the region:"
                    + " close memory regions before the arena that owns their memory");
        }
    }

    /**
     * The scope of memory the caller owns, or null when the region owns its memory. A prepared
     * request checks such a scope at each post: the caller may close its arena without closing
     * the region first (a region it owns closes its dependents before its memory goes). Null
     * too for the global scope, which never closes.
     */
    MemorySegment.Scope callerScope() {
        MemorySegment.Scope scope = segment.scope();
        return ownArena != null || scope.equals(GLOBAL) ? null : scope;
    }

    /** Throws {@link IndexOutOfBoundsException} unless {@code [offset, offset + length)} lies in the region. */
    void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + (offset + length) + ") is outside " + this);
        }
    }

    /** {@return the kernel's handle of this region, which another process sharing the context imports ({@link ProtectionDomain#importMemoryRegion})} */
    public int handleNumber() {
        return ibv_mr.handle(handle());
    }

    /** {@return the protection domain the region belongs to} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the registered memory} */
    public MemorySegment segment() {
        checkUsable();
        return segment;
    }

    /**
     * {@return the address the device knows the first registered byte by, which local work
     * requests and peers use: the memory's virtual address, or the iova it was registered at
     * ({@link ProtectionDomain#register(MemorySegment, long, Set)})}
     */
    public long address() {
        return iova;
    }

    /** {@return the number of registered bytes} */
    public long length() {
        return segment.byteSize();
    }

    /** {@return the access rights the region was registered with} */
    public Set<Access> access() {
        return access;
    }

    /** {@return the local key, for scatter/gather entries of local work requests} */
    public int lkey() {
        checkUsable();
        return lkey;
    }

    /** {@return the remote key peers use in one-sided operations on this region} */
    public int rkey() {
        checkUsable();
        return rkey;
    }

    /**
     * Copies {@code text} into the region at {@code offset} as UTF-8, without a terminating NUL
     * (unlike {@link MemorySegment#setString}), and returns the number of bytes: the length to
     * send, e.g. {@code qp.post(new SendRequest().sge(region, 0, region.putString(0, "hello")))}.
     *
     * @param offset from the start of the region
     * @param text   the text
     * @return the number of bytes written
     * @throws IndexOutOfBoundsException when the bytes do not fit, naming the range and the region
     */
    public int putString(long offset, String text) {
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        MemorySegment memory = segment();
        checkRange(offset, bytes.length);
        MemorySegment.copy(bytes, 0, memory, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, bytes.length);
        return bytes.length;
    }

    /**
     * {@return the {@code length} bytes at {@code offset} decoded as UTF-8}, e.g. a received
     * message: {@code region.getString(0, wc.byteLength())}.
     *
     * @param offset from the start of the region
     * @param length the number of bytes, e.g. {@link WorkCompletion#byteLength()}
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public String getString(long offset, int length) {
        MemorySegment memory = segment();
        checkRange(offset, length);
        return new String(memory.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    /** {@return the whole region as remote memory, to hand to a peer} */
    public RemoteMemory remote() {
        return remote(0, segment.byteSize());
    }

    /**
     * {@return the bytes {@code [offset, offset + length)} of the region as remote memory, to hand to a peer}
     *
     * @param offset from the start of the region
     * @param length the number of bytes
     */
    public RemoteMemory remote(long offset, long length) {
        checkUsable();
        checkRange(offset, length);
        return new RemoteMemory(iova + offset, length, rkey);
    }

    /**
     * On-demand paging is checked against the device's capability first: without ODP, librxe and
     * the kernel answer a registration with IBV_ACCESS_ON_DEMAND with EINVAL, which would read as
     * a mistake in the arguments rather than a missing capability.
     */
    private static void checkOnDemandPaging(ProtectionDomain pd, MemorySegment segment, Set<Access> rights) {
        Context context = pd.context();
        DeviceAttributes attributes = context.queryDevice();
        if (!attributes.supportsOnDemandPaging()) {
            throw new OperationNotSupportedException(Verb.IBV_REG_MR, pd + ", " + segment.byteSize() + " bytes, " + rights,
                    context.name() + " does not implement on-demand paging (its odp_caps.general_caps 0x"
                            + Long.toHexString(attributes.odpGeneralCapabilities()) + " lack IBV_ODP_SUPPORT);"
                            + " the registration was not attempted");
        }
    }

    /**
     * Changes the region's access rights in place, keeping its memory and keys where the
     * provider can ({@code IBV_REREG_MR_CHANGE_ACCESS}). Providers without re-registration (rxe)
     * throw {@link OperationNotSupportedException} and leave the region as it was.
     *
     * @param access the new rights
     */
    @Reaches({"ibv_rereg_mr"})
    public void reregister(Set<Access> access) {
        Set<Access> rights = access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access);
        final int changeAccess = 1 << 2;   // IBV_REREG_MR_CHANGE_ACCESS
        try (Arena arena = Arena.ofConfined(); var _ = hold(this, pd)) {
            checkUsable();
            MemorySegment errno = Errno.allocate(arena);
            int rc = ImportVerbs.ibv_rereg_mr(errno, handle, changeAccess, MemorySegment.NULL, MemorySegment.NULL, 0,
                    Access.flags(rights));
            if (rc != 0) {
                int e = Errno.get(errno);
                // libibverbs reports any failure of the provider as IBV_REREG_MR_ERR_CMD (-4, "do not use
                // the MR"); its EOPNOTSUPP stub changed nothing, so the region stays valid then.
                throw RdmaException.of(Verb.IBV_REREG_MR, this, e, Unsupported.detail(pd.context(), e,
                        "re-registering memory regions", "to " + rights + " (code " + rc + ")"));
            }
            this.access = Collections.unmodifiableSet(rights);
        }
    }

    /**
     * Asks the device to fault in {@code [offset, offset + length)} of an on-demand-paging region
     * now ({@code IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE} when the region is writable, else
     * {@code _PREFETCH}), so the first access does not wait for a page fault. Providers without
     * it (rxe in rdma-core 44) throw {@link OperationNotSupportedException}.
     *
     * @param offset from the start of the region
     * @param length the number of bytes
     */
    @Reaches({"ibv_advise_mr"})
    public void prefetch(long offset, long length) {
        checkRange(offset, length);
        try (Arena arena = Arena.ofConfined(); var _ = hold(this, pd)) {
            checkUsable();
            MemorySegment sge = arena.allocate(ibv_sge.layout());
            ibv_sge.addr(sge, iova + offset);
            ibv_sge.length(sge, (int) length);
            ibv_sge.lkey(sge, lkey);
            int advice = access.contains(Access.LOCAL_WRITE) ? rdma_h.IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE()
                    : rdma_h.IBV_ADVISE_MR_ADVICE_PREFETCH();
            int rc = ExtensionVerbs.ibv_advise_mr(pd.handle(), advice, 0, sge, 1);
            RdmaException.check(Verb.IBV_ADVISE_MR, this, rc, pd.context(), "advice on memory regions (ibv_advise_mr)");
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            // An arena's cleanup must not throw; the region is closed either way.
        }
    }

    @Override
    @Reaches("ibv_dereg_mr")
    protected void release() {
        // Marked closed, so new posts refuse this region; a post already past that check may
        // still be copying inline data out of its pages.
        pd.awaitPostsQuiescent();
        try {
            RdmaException.check(Verb.IBV_DEREG_MR, this, rdma_h.ibv_dereg_mr(handle));
        } finally {
            if (ownArena != null) {
                ownArena.close();
            }
        }
    }

    /** {@code memory region lkey 0x.. (n bytes) on <device>}. */
    @Override
    public String toString() {
        return "memory region lkey 0x" + Integer.toHexString(lkey) + " (" + segment.byteSize() + " bytes) on "
                + pd.context().name();
    }
}
