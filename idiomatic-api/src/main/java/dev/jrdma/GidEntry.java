// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.net.Inet4Address;
import java.util.Optional;

/**
 * One valid entry of a port's GID table ({@code struct ibv_gid_entry}).
 *
 * @param index   the GID index, used as the source GID index when connecting
 * @param port    the port number
 * @param gid     the GID
 * @param type    how the GID is used on the wire (RoCE v1/v2, IB)
 * @param ifindex the network interface the entry belongs to (RoCE), 0 on InfiniBand
 */
public record GidEntry(int index, int port, Gid gid, GidType type, int ifindex) {
    /** {@return the IPv4 address of an IPv4-mapped GID (RoCE); empty otherwise} */
    public Optional<Inet4Address> ipv4() {
        return gid.ipv4();
    }
}
