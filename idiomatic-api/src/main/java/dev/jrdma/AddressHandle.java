// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_ah;
import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An address handle ({@code struct ibv_ah}): the route to a remote port that UD sends carry
 * ({@link SendRequest#datagram}). From {@link ProtectionDomain#createAddressHandle}; usable only
 * with queue pairs of the same protection domain. Thread-safe (immutable once created).
 *
 * <p>{@link #toString()}: {@code address handle <n> to <gid> on <device>}.
 */
public final class AddressHandle extends NativeObject {
    private final ProtectionDomain pd;

    private AddressHandle(ProtectionDomain pd, MemorySegment handle, Gid remote) {
        super(handle, "address handle " + ibv_ah.handle(handle) + " to " + remote + " on " + pd.context().name(),
                pd);
        this.pd = pd;
    }

    static AddressHandle create(ProtectionDomain pd, Endpoint remote, int port, int gidIndex, ConnectionOptions options) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment attr = arena.allocate(ibv_ah_attr.layout());
            QpAttributes.addressVector(attr, remote, port, gidIndex, options);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment ah = ErrnoVerbs.ibv_create_ah(errno, pd.handle(), attr);
            if (ah.address() == 0) {
                throw RdmaException.of(Verb.IBV_CREATE_AH, pd + ", port " + port + ", GID index " + gidIndex + " to "
                        + remote.gid(), Errno.get(errno));
            }
            return wrapCreated(ah, ibv_ah.layout(), h -> new AddressHandle(pd, h, remote.gid()), rdma_h::ibv_destroy_ah);
        }
    }

    /** The route back to the sender of the datagram {@code wc} received, whose GRH is {@code grh}. */
    static AddressHandle toSender(ProtectionDomain pd, int port, WorkCompletion wc, MemorySegment grh) {
        try (var _ = hold(pd)) {
            MemorySegment ah = ReplyRoutes.createAddressHandle(pd, port, wc, grh);
            // The same route as an address vector, for the sender's GID this handle's toString() names.
            return wrapCreated(ah, ibv_ah.layout(), h -> new AddressHandle(pd, h,
                    ReplyRoutes.addressVector(pd.context(), pd.context().handle(), port, wc, grh).gid()),
                    ReplyRoutes::destroy);
        }
    }

    /**
     * An address handle for an address vector ({@code struct ibv_ah_attr}) filled elsewhere, e.g.
     * the one rdma_cm resolved for a UD peer or a multicast group ({@link dev.jrdma.cm.DatagramPeer}).
     */
    static AddressHandle create(ProtectionDomain pd, MemorySegment attr, Gid destination) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment ah = ErrnoVerbs.ibv_create_ah(errno, pd.handle(), attr);
            if (ah.address() == 0) {
                throw RdmaException.of(Verb.IBV_CREATE_AH, pd + " to " + destination, Errno.get(errno));
            }
            return wrapCreated(ah, ibv_ah.layout(), h -> new AddressHandle(pd, h, destination), rdma_h::ibv_destroy_ah);
        }
    }

    /** {@return the protection domain} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    @Reaches("ibv_destroy_ah")
    protected void release() {
        // A UD send already past its check of this handle may still be reading it in the provider.
        pd.awaitPostsQuiescent();
        RdmaException.check(Verb.IBV_DESTROY_AH, this, rdma_h.ibv_destroy_ah(handle));
    }
}
