// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
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
    private final Set<Access> access;
    private final int lkey;
    private final int rkey;

    private MemoryRegion(ProtectionDomain pd, MemorySegment handle, MemorySegment segment, Arena ownArena,
                         Set<Access> access) {
        super(pd);
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
        MemoryRegion mr = create(pd, segment, access, null);
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
            return create(pd, segment, access, arena);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private static MemoryRegion create(ProtectionDomain pd, MemorySegment segment, Set<Access> access,
                                       Arena ownArena) {
        Set<Access> rights = access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access);
        if ((rights.contains(Access.REMOTE_WRITE) || rights.contains(Access.REMOTE_ATOMIC))
                && !rights.contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("REMOTE_WRITE and REMOTE_ATOMIC require LOCAL_WRITE (" + rights + ")");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        Events.Registration timing = Events.beginRegistration();
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ErrnoVerbs.ibv_reg_mr_iova2(errno, pd.handle(), segment, segment.byteSize(), segment.address(),
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
                MemoryRegion region = new MemoryRegion(pd, h, segment, ownArena, Collections.unmodifiableSet(rights));
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

    /** {@return the protection domain the region belongs to} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the registered memory} */
    public MemorySegment segment() {
        checkUsable();
        return segment;
    }

    /** {@return the address of the first registered byte} */
    public long address() {
        return segment.address();
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
        return new RemoteMemory(segment.address() + offset, length, rkey);
    }

    private void closeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            // An arena's cleanup must not throw; the region is closed either way.
        }
    }

    @Override
    void release() {
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
