// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mw;
import dev.jrdma.bindings.generated.ibv_mw_bind;
import dev.jrdma.bindings.generated.ibv_mw_bind_info;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.MemoryWindowVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A memory window ({@code struct ibv_mw}): a remote key for a sub-range of a memory region,
 * bound and re-bound through a queue pair without re-registering, so access can be granted
 * and revoked cheaply. From {@link ProtectionDomain#allocateMemoryWindow()} (type 1, bound
 * with {@link QueuePair#bind}) or {@link ProtectionDomain#allocateMemoryWindow(MemoryWindowType)}
 * (type 2, bound with a {@link SendOpcode#BIND_MW} work request, {@link SendRequest#bind});
 * providers without memory windows throw {@link OperationNotSupportedException}. A window
 * depends on the regions it was bound to: closing such a region closes the window first. A
 * type 2 window also depends on the queue pairs it was bound through: closing such a queue
 * pair (or the protection domain or context above it) closes the window first. The device
 * ties a bound type 2 window to its queue pair, and rxe keeps a reference on the queue pair
 * for it until the window is invalidated or deallocated: a queue pair destroyed first waits
 * for that reference to time out (~50 s), so the window goes first. Not thread-safe.
 *
 * <p>Keys: every bind gives the window a new rkey, the old one with its low 8 bits (the key
 * tag) advanced ({@link #nextRkey}), which revokes the previous one. For a type 2 window
 * jrdma keeps the key the device holds: the provider checks each bind against it.
 *
 * <p>{@link #toString()}: {@code memory window handle <n> (<type>) on <device>}.
 */
public final class MemoryWindow extends NativeObject {
    private final ProtectionDomain pd;
    private final MemoryWindowType type;
    private long address;
    private long length;
    /** The region of the last bind; unbinding re-binds to it with length 0. */
    private MemoryRegion boundRegion;
    /**
     * Type 2: the key the device holds once the binds posted so far are done, and the one
     * before the last claim, to give back when that bind's post fails.
     */
    private int deviceKey;
    private int keyBeforeClaim;
    private long addressBeforeClaim;
    private long lengthBeforeClaim;

    private MemoryWindow(ProtectionDomain pd, MemorySegment handle, MemoryWindowType type) {
        super(handle, "memory window handle " + ibv_mw.handle(handle) + " (" + type + ") on " + pd.context().name(),
                pd);
        this.pd = pd;
        this.type = type;
        this.deviceKey = ibv_mw.rkey(handle);
    }

    static MemoryWindow allocate(ProtectionDomain pd, MemoryWindowType type) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mw = RdmaException.checkCreated(Verb.IBV_ALLOC_MW, pd + ", " + type, errno,
                    MemoryWindowVerbs.ibv_alloc_mw(errno, pd.handle(), type.value()));
            return wrapCreated(mw, ibv_mw.layout(), h -> new MemoryWindow(pd, h, type), MemoryWindowVerbs::ibv_dealloc_mw);
        }
    }

    /**
     * {@return the key a bind gives a window whose key is {@code rkey}: the same window index,
     * the key tag (low 8 bits) advanced by one ({@code ibv_inc_rkey})}
     *
     * @param rkey the window's current key
     */
    @Reaches("ibv_inc_rkey")
    public static int nextRkey(int rkey) {
        return MemoryWindowVerbs.ibv_inc_rkey(rkey);
    }

    /** {@return how the window is bound: type 1 or type 2} */
    public MemoryWindowType type() {
        return type;
    }

    /** {@return the protection domain} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * {@return the current remote key; it changes with every bind, which revokes the previous
     * one} For a type 2 window: the key of the last bind posted, which peers may use once its
     * completion arrived. An invalidation leaves the key as it is but revokes it.
     */
    public int rkey() {
        enter();
        try {
            return type == MemoryWindowType.TYPE_2 ? deviceKey : ibv_mw.rkey(handle);
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
        if (type != MemoryWindowType.TYPE_1) {
            throw new IllegalArgumentException(this + " is bound with a BIND_MW work request (SendRequest.bind),"
                    + " not with ibv_bind_mw");
        }
        checkBindable(qp, mr, offset, length);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bind = arena.allocate(ibv_mw_bind.layout());
            ibv_mw_bind.wr_id(bind, wrId);
            ibv_mw_bind.send_flags(bind, 1 << 1);   // IBV_SEND_SIGNALED: the bind completes on the send CQ
            MemorySegment info = ibv_mw_bind.bind_info(bind);
            ibv_mw_bind_info.mr(info, mr.handle());
            ibv_mw_bind_info.addr(info, mr.address() + offset);
            ibv_mw_bind_info.length(info, length);
            ibv_mw_bind_info.mw_access_flags(info, Access.flags(access));
            int rc = MemoryWindowVerbs.ibv_bind_mw(qpHandle, handle, bind);
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

    private void checkBindable(QueuePair qp, MemoryRegion mr, long offset, long length) {
        mr.checkUsable();
        mr.checkRange(offset, length);
        if (!mr.access().contains(Access.MW_BIND)) {
            throw new IllegalArgumentException(mr + " was registered without MW_BIND");
        }
        if (mr.protectionDomain() != pd || qp.protectionDomain() != pd) {
            throw new IllegalArgumentException(this + ", " + mr + " and " + qp + " must share a protection domain");
        }
    }

    /**
     * Claims the next key for a BIND_MW work request about to be posted through {@code qp}
     * (type 2): brings the native {@code ibv_mw.rkey} to the key the device holds, which the
     * provider sends along to be checked, and returns the new key to write into the request.
     * {@link #unclaim()} gives it back when the post fails.
     */
    int claimBind(QueuePair qp, MemoryRegion mr, long offset, long length) {
        checkOpen();
        if (type != MemoryWindowType.TYPE_2) {
            throw new IllegalArgumentException(this + " is bound with QueuePair.bind (ibv_bind_mw), not with a"
                    + " BIND_MW work request");
        }
        if (length == 0) {
            throw new IllegalArgumentException(this + ": a type 2 window is revoked by invalidation (LOCAL_INV or"
                    + " SEND_WITH_INV), not by a zero-length bind");
        }
        checkBindable(qp, mr, offset, length);
        bindsThrough(qp);
        ibv_mw.rkey(handle, deviceKey);
        keyBeforeClaim = deviceKey;
        addressBeforeClaim = this.address;
        lengthBeforeClaim = this.length;
        deviceKey = nextRkey(deviceKey);
        dependOn(mr);
        this.boundRegion = mr;
        this.address = mr.address() + offset;
        this.length = length;
        return deviceKey;
    }

    /**
     * Makes this type 2 window depend on {@code qp}, which is about to bind it, so that closing
     * {@code qp} deallocates the window first (see the class comment). Kept after an
     * invalidation or a bind through another queue pair, as the regions are: the window is
     * closed a little early then, never a queue pair destroyed late. Allocates only the first
     * time a window is bound through {@code qp}.
     */
    void bindsThrough(QueuePair qp) {
        dependOn(qp);
    }

    /**
     * A BIND_MW built through the extended post API ({@link ExtendedSendQueue#bindMemoryWindow})
     * gave this type 2 window {@code rkey}: {@link #rkey()}, {@link #remote()} and the next bind
     * by work request must know it, since the device refuses a bind that does not name the
     * window's current key.
     */
    void boundByExtendedPost(int rkey, MemoryRegion mr, long offset, long length) {
        deviceKey = rkey;
        dependOn(mr);
        this.boundRegion = mr;
        this.address = mr.address() + offset;
        this.length = length;
    }

    /** The post of the last claimed bind failed: the device keeps the key it had. */
    void unclaim() {
        deviceKey = keyBeforeClaim;
        address = addressBeforeClaim;
        length = lengthBeforeClaim;
    }

    @Override
    @Reaches("ibv_dealloc_mw")
    protected void release() {
        // A BIND_MW post already past its check of this window may still be reading it in the provider.
        pd.awaitPostsQuiescent();
        RdmaException.check(Verb.IBV_DEALLOC_MW, this, MemoryWindowVerbs.ibv_dealloc_mw(handle));
    }
}
