// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which GID table entry a program sends from when it has no reason to pick one:
 * {@link Context#defaultGid(int)}. On InfiniBand packets are routed by LID and entry 0 (the
 * port's GUID-based GID) is what every tool uses. RoCE has no LIDs: every packet carries a GRH
 * routed by GID, so the GID must be one the peer can reach. RoCE v2 packets are UDP/IP,
 * routable like any IP traffic, and an entry holding an IPv4 address is reachable wherever the
 * interface's address is; link-local IPv6 entries (fe80::) only on the same link, and RoCE v1
 * entries (Ethernet frames, not IP) only inside one L2 domain.
 */
final class DefaultGid {
    private DefaultGid() {}

    /** Lower is better: RoCE v2 IPv4, RoCE v2 global IPv6, RoCE v2 link-local, RoCE v1, then IB. */
    private static int rank(GidEntry e) {
        boolean linkLocal = (e.gid().high() >>> 48) == 0xfe80L;
        return switch (e.type()) {
            case ROCE_V2 -> e.ipv4().isPresent() ? 0 : linkLocal ? 2 : 1;
            case ROCE_V1 -> 3;
            default -> 4;
        };
    }

    static Optional<GidEntry> choose(List<GidEntry> table, LinkLayer linkLayer) {
        if (linkLayer == LinkLayer.INFINIBAND) {
            return table.stream().min(Comparator.comparingInt(GidEntry::index));
        }
        return table.stream().min(Comparator.comparingInt(DefaultGid::rank).thenComparingInt(GidEntry::index));
    }
}
