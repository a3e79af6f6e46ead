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

    /** {@link Context#defaultPort()}: the lowest-numbered ACTIVE port, else the first. */
    static int port(Context context) {
        int ports = context.queryDevice().physicalPortCount();
        for (int port = Context.FIRST_PORT; port <= ports; port++) {
            if (context.queryPort(port).state() == PortState.ACTIVE) {
                return port;
            }
        }
        return Context.FIRST_PORT;
    }

    /** {@link Context#defaultGid(int)}: the best entry of {@code port}'s table, see {@link #choose}. */
    static GidEntry of(Context context, int port) {
        PortAttributes attributes = context.queryPort(port);
        return choose(context.gidTable(port), attributes.linkLayer()).orElseThrow(() -> new IllegalStateException(
                "no GID on " + context.name() + " port " + port + " (" + attributes.state()
                        + "); on RoCE, does its network interface have an IP address?"));
    }

    static Optional<GidEntry> choose(List<GidEntry> table, LinkLayer linkLayer) {
        if (linkLayer == LinkLayer.INFINIBAND) {
            return table.stream().min(Comparator.comparingInt(GidEntry::index));
        }
        return table.stream().min(Comparator.comparingInt(DefaultGid::rank).thenComparingInt(GidEntry::index));
    }
}
