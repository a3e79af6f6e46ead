// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * A UD multicast group: its GID and, on InfiniBand, its multicast LID (the subnet manager
 * assigns it when the group is joined through it; on RoCE there are no LIDs and it is 0). UD
 * queue pairs receive the group's datagrams once attached ({@link QueuePair#attachMulticast});
 * anyone sends to it through an address handle to the group
 * ({@link ProtectionDomain#createAddressHandle(MulticastGroup, GidEntry)}) and the remote QPN
 * {@link #QPN}.
 *
 * <p>On RoCE v2 the group's GID is an IP multicast address: IPv4-mapped ({@code ::ffff:239.x.y.z},
 * {@link #ofIp}) when sending from an IPv4 GID, an IPv6 multicast address ({@code ff0e::...})
 * when sending from an IPv6 one; the packets are UDP datagrams to that address.
 *
 * @param gid the group's GID: a multicast address ({@code ff00::/8}, or an IPv4-mapped
 *            {@code 224.0.0.0/4})
 * @param lid the multicast LID on InfiniBand; 0 on RoCE
 */
public record MulticastGroup(Gid gid, int lid) {
    /** The QPN a datagram to a multicast group is sent to ({@code 0xFFFFFF}); every attached QP receives it. */
    public static final int QPN = 0xFFFFFF;

    /** Checks that {@code gid} is a multicast address. */
    public MulticastGroup {
        if (!isMulticast(gid)) {
            throw new IllegalArgumentException(gid + " is no multicast GID: an IPv6 multicast address (ff00::/8)"
                    + " or an IPv4-mapped one in 224.0.0.0/4");
        }
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("a LID has 16 bits, not " + lid);
        }
    }

    /**
     * {@return the RoCE group of an IP multicast address: IPv4 ones mapped into a GID}
     *
     * @param address an IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast address
     */
    public static MulticastGroup ofIp(InetAddress address) {
        if (!address.isMulticastAddress()) {
            throw new IllegalArgumentException(address + " is not a multicast address");
        }
        Gid gid = address instanceof Inet4Address v4 ? Gid.ofIpv4(v4) : Gid.of(((Inet6Address) address).getAddress());
        return new MulticastGroup(gid, 0);
    }

    private static boolean isMulticast(Gid gid) {
        if (gid.high() >>> 56 == 0xff) {
            return true;
        }
        return gid.isIpv4Mapped() && (gid.low() >>> 28 & 0xf) == 0xe;
    }

    /** The group as the destination of an address handle. */
    Endpoint endpoint() {
        return new Endpoint(QPN, 0, lid, gid, Mtu.MTU_1024);
    }
}
