// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.QueuePair;
import dev.jrdma.Reaches;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_cm_join_mc_attr_ex;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * An rdma_cm multicast join: a multicast group a datagram id joined ({@link #join}). rdma_cm attached the
 * id's UD queue pair to the group (unless it joined as a send-only member), so datagrams sent to
 * the group arrive in its receive queue; {@link #destination()} is where to send to the group.
 * {@link #close()} leaves the group ({@code rdma_leave_multicast}, which also detaches the
 * queue pair); closing the id leaves it first.
 *
 * <p>{@link #toString()}: {@code multicast group <address> joined by <id>}.
 */
@Reaches("rdma_leave_multicast")
public final class MulticastJoin extends CmResource {
    /** How an id joins a group ({@code RDMA_MC_JOIN_FLAG_*}). */
    public enum JoinType {
        /** Sends to and receives from the group: the id's queue pair is attached. */
        FULL_MEMBER(rdma_h.RDMA_MC_JOIN_FLAG_FULLMEMBER()),
        /** Only sends to the group: no attach, and on InfiniBand no receive membership in the fabric. */
        SEND_ONLY_FULL_MEMBER(rdma_h.RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER());

        final int flag;

        JoinType(int flag) {
            this.flag = flag;
        }
    }

    private final CmId id;
    private final InetAddress group;
    private final JoinType type;
    private final DatagramPeer destination;

    /**
     * Owned by the id and by its queue pair, if it has one: closing the queue pair leaves the
     * group first, which detaches it; rxe (Linux 6.1) refuses to destroy a queue pair still
     * attached to a group (EBUSY).
     */
    private MulticastJoin(CmId id, QueuePair qp, InetAddress group, JoinType type, DatagramPeer destination) {
        super(id.lifetime, qp);
        this.id = id;
        this.group = group;
        this.type = type;
        this.destination = destination;
    }

    /**
     * Joins the IP multicast group {@code group} as a full member with datagram id {@code id}
     * ({@code rdma_join_multicast}; waits for MULTICAST_JOIN): the UD queue pair created on the
     * id is attached to the group. Bind or resolve the id to a local address first.
     *
     * @param id      a datagram id ({@link CmEventChannel#createDatagramId})
     * @param group   an IPv4 or IPv6 multicast address
     * @param timeout how long to wait for the join
     * @return the membership; closing it leaves the group
     */
    @Reaches("rdma_join_multicast")
    public static MulticastJoin join(CmId id, InetAddress group, Duration timeout) {
        return joinAs(id, group, null, timeout);
    }

    /**
     * Joins {@code group} as {@code type} ({@code rdma_join_multicast_ex}); see
     * {@link #join(CmId, InetAddress, Duration)}.
     *
     * @param id      a datagram id
     * @param group   an IPv4 or IPv6 multicast address
     * @param type    full member, or send-only (the queue pair is not attached)
     * @param timeout how long to wait for the join
     * @return the membership; closing it leaves the group
     */
    @Reaches("rdma_join_multicast_ex")
    public static MulticastJoin join(CmId id, InetAddress group, JoinType type, Duration timeout) {
        return joinAs(id, group, java.util.Objects.requireNonNull(type, "type"), timeout);
    }

    /** Joins (rdma_join_multicast without a type, else rdma_join_multicast_ex); waits for MULTICAST_JOIN. */
    private static MulticastJoin joinAs(CmId id, InetAddress group, JoinType type, Duration timeout) {
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException(group + " is not a multicast address");
        }
        try (Arena arena = Arena.ofConfined(); var _ = CORE.hold(id.lifetime)) {
            MemorySegment address = SocketAddresses.encode(arena, new InetSocketAddress(group, 0));
            MemorySegment errno = Errno.allocate(arena);
            int rc;
            if (type == null) {
                rc = RdmaCmVerbs.rdma_join_multicast(errno, id.handle(), address, MemorySegment.NULL);
            } else {
                MemorySegment attr = arena.allocate(rdma_cm_join_mc_attr_ex.layout());
                rdma_cm_join_mc_attr_ex.comp_mask(attr, rdma_h.RDMA_CM_JOIN_MC_ATTR_ADDRESS()
                        | rdma_h.RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS());
                rdma_cm_join_mc_attr_ex.join_flags(attr, type.flag);
                rdma_cm_join_mc_attr_ex.addr(attr, address);
                rc = RdmaCmVerbs.rdma_join_multicast_ex(errno, id.handle(), attr, MemorySegment.NULL);
            }
            if (rc != 0) {
                throw CORE.exception(Verb.RDMA_JOIN_MULTICAST, id, Errno.get(errno),
                        group.getHostAddress() + (type == null ? "" : " as " + type));
            }
        }
        CmEventChannel.Event event = id.expect(CmEventType.MULTICAST_JOIN, timeout, Verb.RDMA_JOIN_MULTICAST,
                "joining " + group.getHostAddress());
        try {
            return new MulticastJoin(id, id.queuePair(), group, type == null ? JoinType.FULL_MEMBER : type,
                    event.peer());
        } catch (RuntimeException e) {
            leave(id, group);
            throw e;
        }
    }

    private static int leave(CmId id, InetAddress group) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment address = SocketAddresses.encode(arena, new InetSocketAddress(group, 0));
            return RdmaCmVerbs.rdma_leave_multicast(errno, id.rawHandle(), address) == 0 ? 0 : Errno.get(errno);
        }
    }

    /** {@return the group's IP multicast address} */
    public InetAddress address() {
        return group;
    }

    /** {@return how the id joined} */
    public JoinType joinType() {
        return type;
    }

    /**
     * {@return where to send to the group}: QPN {@link DatagramPeer#MULTICAST_QPN}, the group's
     * Q_Key, and the address vector of its MGID, for {@link DatagramPeer#createAddressHandle}
     */
    public DatagramPeer destination() {
        return destination;
    }

    @Override
    void release() {
        int errno = leave(id, group);
        if (errno != 0) {
            throw CORE.exception(Verb.RDMA_LEAVE_MULTICAST, this, errno);
        }
    }

    @Override
    public String toString() {
        return "multicast group " + group.getHostAddress() + " joined by " + id;
    }
}
