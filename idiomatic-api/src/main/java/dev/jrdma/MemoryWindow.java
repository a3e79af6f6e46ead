// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mw;
import dev.jrdma.bindings.generated.ibv_mw_bind;
import dev.jrdma.bindings.generated.ibv_mw_bind_info;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A type 1 memory window ({@code struct ibv_mw}): a remote key for a sub-range of a memory
 * region, bound and re-bound through a queue pair ({@link QueuePair#bind}) without
 * re-registering, so access can be granted and revoked cheaply. From
 * {@link ProtectionDomain#allocateMemoryWindow()}; providers without memory windows throw
 * {@link OperationNotSupportedException}. A window depends on the regions it was bound to:
 * closing such a region closes the window first. Not thread-safe.
 *
 * <p>{@link #toString()}: {@code memory window handle <n> on <device>}.
 */
public final class MemoryWindow extends NativeObject {
    /** {@code IBV_MW_TYPE_1}: bound with ibv_bind_mw rather than a work request. */
    private static final int TYPE_1 = 1;

    private final ProtectionDomain pd;
    private long address;
    private long length;
    /** The region of the last bind; unbinding re-binds to it with length 0. */
    private MemoryRegion boundRegion;

    private MemoryWindow(ProtectionDomain pd, MemorySegment handle) {
        super(handle, "memory window handle " + ibv_mw.handle(handle) + " on " + pd.context().name(),
                pd);
        this.pd = pd;
    }

    static MemoryWindow allocate(ProtectionDomain pd) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mw = RdmaException.checkCreated(Verb.IBV_ALLOC_MW, pd, errno,
                    InlineVerbs.ibv_alloc_mw(errno, pd.handle(), TYPE_1));
            return wrapCreated(mw, ibv_mw.layout(), h -> new MemoryWindow(pd, h), InlineVerbs::ibv_dealloc_mw);
        }
    }

    /** {@return the protection domain} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the current remote key; it changes with every bind, which revokes the previous one} */
    public int rkey() {
        enter();
        try {
            return ibv_mw.rkey(handle);
        } finally {
            exit();
        }
    }

    /** {@return the bound range as remote memory, to hand to a peer (length 0 while unbound)} */
    public RemoteMemory remote() {
        return new RemoteMemory(address, length, rkey());
    }

    /**
     * Unbinds through {@code qp}; see {@link QueuePair#unbind}. A zero-length bind to the last
     * region, never a NULL region: librxe (rdma-core 44) dereferences {@code bind_info.mr}
     * without checking it, so the C-legal NULL crashes the process there.
     */
    void unbind(QueuePair qp, long wrId, MemorySegment qpHandle) {
        checkOpen();
        if (boundRegion == null) {
            throw new IllegalStateException(this + " is not bound");
        }
        bind(qp, boundRegion, 0, 0, Set.of(), wrId, qpHandle);
    }

    /** Binds through {@code qp}; see {@link QueuePair#bind}. */
    void bind(QueuePair qp, MemoryRegion mr, long offset, long length, Set<Access> access, long wrId,
              MemorySegment qpHandle) {
        checkOpen();
        mr.checkUsable();
        mr.checkRange(offset, length);
        if (!mr.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException(mr + " was registered without MW_BIND");
        }
        if (mr.protectionDomain() != pd || qp.protectionDomain() != pd) {
            throw new IllegalArgumentException(this + ", " + mr + " and " + qp + " must share a protection domain");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bind = arena.allocate(ibv_mw_bind.layout());
            ibv_mw_bind.wr_id(bind, wrId);
            ibv_mw_bind.send_flags(bind, 1 << 1);   // IBV_SEND_SIGNALED: the bind completes on the send CQ
            MemorySegment info = ibv_mw_bind.bind_info(bind);
            ibv_mw_bind_info.mr(info, mr.handle());
            ibv_mw_bind_info.addr(info, mr.address() + offset);
            ibv_mw_bind_info.length(info, length);
            ibv_mw_bind_info.mw_access_flags(info, Access.flags(access));
            int rc = InlineVerbs.ibv_bind_mw(qpHandle, handle, bind);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_BIND_MW, this, rc, "through " + qp + " to " + length + " bytes of "
                        + mr + " with " + access);
            }
        }
        dependOn(mr);
        this.boundRegion = mr;
        this.address = length == 0 ? 0 : mr.address() + offset;
        this.length = length;
    }

    @Override
    @Reaches("ibv_dealloc_mw")
    void release() {
        RdmaException.check(Verb.IBV_DEALLOC_MW, this, InlineVerbs.ibv_dealloc_mw(handle));
    }
}
