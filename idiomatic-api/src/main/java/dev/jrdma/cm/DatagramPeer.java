// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.AddressHandle;
import dev.jrdma.Gid;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.SendRequest;
import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.rdma_ud_param;
import dev.jrdma.internal.CoreAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Where UD sends go, as rdma_cm resolved it ({@code struct rdma_ud_param} of an ESTABLISHED
 * event on a UD id, or of a MULTICAST_JOIN): the remote queue pair number and Q_Key, and the
 * address vector to build an {@link AddressHandle} from. For a multicast group the queue pair
 * number is {@link #MULTICAST_QPN} and the destination GID is the group's.
 *
 * <p>Immutable; a copy of the event's parameters, valid after the event is acknowledged.
 */
public final class DatagramPeer {
    private static final CoreAccess CORE = CoreAccess.get();

    /** The queue pair number of multicast sends, {@code 0xFFFFFF}. */
    public static final int MULTICAST_QPN = 0xFFFFFF;

    private final int qpNumber;
    private final int qkey;
    private final byte[] addressVector;

    private DatagramPeer(int qpNumber, int qkey, byte[] addressVector) {
        this.qpNumber = qpNumber;
        this.qkey = qkey;
        this.addressVector = addressVector;
    }

    /** Copies {@code struct rdma_ud_param} {@code ud}. */
    static DatagramPeer copyOf(MemorySegment ud) {
        byte[] av = rdma_ud_param.ah_attr(ud).toArray(JAVA_BYTE);
        return new DatagramPeer(rdma_ud_param.qp_num(ud), rdma_ud_param.qkey(ud), av);
    }

    /** {@return the remote queue pair number ({@link #MULTICAST_QPN} for a group)} */
    public int qpNumber() {
        return qpNumber;
    }

    /** {@return the Q_Key the remote queue pair accepts} */
    public int qkey() {
        return qkey;
    }

    /** {@return the destination GID of the address vector (a multicast group's MGID for a group)} */
    public Gid gid() {
        MemorySegment av = MemorySegment.ofArray(addressVector);
        return Gid.of(ibv_global_route.dgid(ibv_ah_attr.grh(av)).toArray(JAVA_BYTE));
    }

    /** {@return whether the address vector carries a global route (always on RoCE)} */
    public boolean isGlobal() {
        return ibv_ah_attr.is_global(MemorySegment.ofArray(addressVector)) != 0;
    }

    /**
     * Creates an address handle for this peer's address vector, as rdma_cm resolved it
     * ({@code ibv_create_ah}); pass it with {@link #qpNumber()} and {@link #qkey()} to
     * {@link SendRequest#datagram}.
     *
     * @param pd the protection domain of the UD queue pair that sends
     * @return the address handle, owned by {@code pd}
     */
    public AddressHandle createAddressHandle(ProtectionDomain pd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_ah_attr.layout());
            attr.copyFrom(MemorySegment.ofArray(addressVector));
            return CORE.createAddressHandle(pd, attr, gid());
        }
    }

    /** {@code datagram peer qpn 0x<qpn> qkey 0x<qkey> gid <gid>}. */
    @Override
    public String toString() {
        return "datagram peer qpn 0x" + Integer.toHexString(qpNumber) + " qkey 0x" + Integer.toHexString(qkey)
                + " gid " + gid();
    }
}
