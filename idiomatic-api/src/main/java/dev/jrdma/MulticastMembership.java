// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A UD queue pair's membership in a multicast group, from {@link QueuePair#attachMulticast}:
 * while it is open, the group's datagrams arrive at the queue pair's receive queue (with the
 * Q_Key check as for any datagram). Closing it ({@link #detach()}) detaches the queue pair
 * ({@code ibv_detach_mcast}); closing the queue pair closes it first.
 *
 * <p>What the device needs: rxe programs the group's multicast MAC into its network device's
 * filter, but does not join the IP group, so the kernel loops a datagram sent from this host
 * back to members on this host only when a socket of the host has joined the group on that
 * interface (as for any IP multicast; see docs/guide/multicast.md).
 *
 * <p>{@link #toString()}: {@code membership of queue pair 0x<qpn> (UD) on <device> in <gid>}.
 */
public final class MulticastMembership extends NativeResource {
    private final QueuePair qp;
    private final MulticastGroup group;
    /** The group's GID as ibv_attach_mcast read it; detaching passes the same. */
    private final MemorySegment gid;

    private MulticastMembership(QueuePair qp, MulticastGroup group, MemorySegment gid) {
        // Registered with the queue pair only once the fields are set (dependOn below): a queue
        // pair closing at that moment must find a membership that can detach itself.
        this.qp = qp;
        this.group = group;
        this.gid = gid;
    }

    static MulticastMembership attach(QueuePair qp, MulticastGroup group) {
        if (qp.type() != QueuePairType.UD) {
            throw new IllegalArgumentException(qp + ": only UD queue pairs join multicast groups");
        }
        MemorySegment gid = Arena.ofAuto().allocate(Gid.BYTES);
        group.gid().write(gid);
        try (var _ = hold(qp)) {
            int rc = rdma_h.ibv_attach_mcast(qp.handle, gid, (short) group.lid());
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_ATTACH_MCAST, qp, rc, "to " + group.gid() + " (LID " + group.lid() + ")");
            }
            MulticastMembership membership = new MulticastMembership(qp, group, gid);
            try {
                membership.dependOn(qp);   // IllegalStateException once the queue pair is closing
                return membership;
            } catch (RuntimeException e) {
                rdma_h.ibv_detach_mcast(qp.handle, gid, (short) group.lid());
                throw e;
            }
        }
    }

    /** {@return the queue pair that receives the group's datagrams} */
    public QueuePair queuePair() {
        return qp;
    }

    /** {@return the group} */
    public MulticastGroup group() {
        return group;
    }

    /** Detaches the queue pair from the group: the same as {@link #close()}. */
    @Reaches("ibv_detach_mcast")
    public void detach() {
        close();
    }

    @Override
    protected void release() {
        // The queue pair is open until its dependents, this one included, are released.
        RdmaException.check(Verb.IBV_DETACH_MCAST, this, rdma_h.ibv_detach_mcast(qp.handle, gid, (short) group.lid()));
    }

    @Override
    public String toString() {
        return "membership of " + qp + " in " + group.gid();
    }
}
