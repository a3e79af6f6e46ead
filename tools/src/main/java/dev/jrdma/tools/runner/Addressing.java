// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.Gid;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.MulticastGroup;
import dev.jrdma.QueuePair;
import dev.jrdma.RdmaException;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.CmOption;
import dev.jrdma.tools.perftest.AddressSettings;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.util.List;
import java.util.Optional;

/**
 * The device side of the addressing, QoS, multicast and port options ({@link AddressSettings}):
 * what the runner asks of the device before it uses them, the QP and address-handle options they
 * change, and the multicast group the receiving QPs join.
 */
final class Addressing {
    private Addressing() {
    }

    /**
     * Checks --force-link and --pkey_index against what the device reports (and -O, which the
     * command line refuses before).
     *
     * @param ports the device's physical port count
     */
    static void check(PerftestSettings s, Context context, int ports, boolean ethernet) throws IOException {
        AddressSettings a = s.addressing();
        if (a.dualPort()) {
            // The command line refuses -O after asking the device (DeviceRefusals, exit 2).
            throw new IOException("--dualport (-O): " + context.name() + " has " + ports
                    + " port(s); jrdma does not implement dual-port runs");
        }
        if (a.forceLink() != null && (a.forceLink() == AddressSettings.Link.ETHERNET) != ethernet) {
            throw new IOException("--force-link " + (ethernet ? "IB" : "Ethernet") + ": " + context.name() + " port "
                    + s.ibPort() + " is " + (ethernet ? "Ethernet (RoCE): it has no LIDs to route by"
                    : "InfiniBand: it has no Ethernet link to address"));
        }
        if (a.pkeyIndex() != 0) {
            try {
                context.pkey(s.ibPort(), a.pkeyIndex());
            } catch (RdmaException | IllegalArgumentException e) {
                throw new IOException("--pkey_index " + a.pkeyIndex() + ": " + context.name() + " port " + s.ibPort()
                        + " has no P_Key table entry " + a.pkeyIndex() + " (" + e.getMessage() + ")", e);
            }
        }
    }

    /**
     * The GID index to use without -x, or -1 to pick: -g without -x uses index 0, as perftest
     * (its default group is an IPv6 one; on RoCE entry 0 is the IPv6 link-local GID).
     */
    static int defaultGidIndex(PerftestSettings s) {
        return s.addressing().multicast() ? 0 : -1;
    }

    /** The RoCE v2 GID to pick without -x: an IPv4-mapped one, or with --ipv6 an IPv6 one. */
    static Optional<GidEntry> preferredGid(PerftestSettings s, List<GidEntry> table) {
        boolean ipv6 = s.addressing().ipv6Gid();
        return table.stream().filter(g -> g.type() == GidType.ROCE_V2 && g.ipv4().isPresent() != ipv6).findFirst();
    }

    /** {@code base} with the GRH traffic class, QP {@code qp}'s flow label and the P_Key index. */
    static ConnectionOptions options(PerftestSettings s, int qp, ConnectionOptions base) {
        AddressSettings a = s.addressing();
        return base.withTrafficClass(a.trafficClass()).withFlowLabel(a.flowLabel(qp)).withPkeyIndex(a.pkeyIndex());
    }

    /**
     * The QPN a UD send to {@code peer} names: the multicast QPN 0xFFFFFF when the peer announced
     * a group (-g), so every QP attached to it receives the datagram; perftest names the peer's
     * own QPN there, which on rxe reaches only that QP. Where this side's QPs are attached to the
     * same group (send-lat with one -M on both sides) the peer's QPN is named as perftest does:
     * with 0xFFFFFF this side's own QP would receive its own datagrams too.
     */
    static int remoteQpn(PerftestSettings s, PeerInfo peer) {
        if (s.addressing().multicast() && peer.hasGid() && AddressSettings.isMulticastGid(peer.gid())
                && !(receivesMulticast(s) && java.util.Arrays.equals(peer.gid(), s.addressing().group(s.client())))) {
            return MulticastGroup.QPN;
        }
        return peer.qpn();
    }

    /** Whether this side's QPs receive from a group: send-lat both sides, send-bw the server. */
    static boolean receivesMulticast(PerftestSettings s) {
        return s.addressing().multicast() && (s.kind() == TestKind.SEND_LAT || !s.client());
    }

    /**
     * The header with -g as perftest prints it: "Multicast" before "Test" in the title, and
     * " MultiCast runs on UD!" after the title (and the events line).
     */
    static String header(PerftestSettings s, dev.jrdma.tools.perftest.TestInfo info, String header) {
        if (!s.addressing().multicast()) {
            return header;
        }
        String title = info.title();
        String multicastTitle = title.endsWith("Test") ? title.substring(0, title.length() - 4) + "Multicast Test" : title;
        int at = header.indexOf(title + "\n");
        if (at < 0) {
            return header;
        }
        String out = header.substring(0, at) + multicastTitle + "\n";
        String rest = header.substring(at + title.length() + 1);
        if (rest.startsWith(" Test with events.")) {
            int eol = rest.indexOf('\n') + 1;
            out += rest.substring(0, eol);
            rest = rest.substring(eol);
        }
        return out + " MultiCast runs on UD!\n" + rest;
    }

    /**
     * -R with -T: the test QP's type of service, set before its route is resolved (the route's
     * traffic class comes from it), as perftest does on the client.
     */
    static void typeOfService(PerftestSettings s, CmId id) {
        if (s.addressing().tos() >= 0) {
            id.setOption(CmOption.TYPE_OF_SERVICE, s.addressing().tos());
        }
    }

    /** --bind_source_ip as a local socket address (port 0 for a client, -p for a server), or null. */
    static InetSocketAddress source(PerftestSettings s, int port) throws IOException {
        String ip = s.addressing().bindSourceIp();
        return ip == null ? null : new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    /**
     * -g on a receiving side: attaches this side's QPs to the group and announces the group's GID
     * (and LID 0, RoCE's) in their records instead of the port's, as perftest does. rxe programs
     * the group's MAC into its netdev but joins no IP group, so the kernel would drop datagrams to
     * the group (and loops none back to this host): a socket joined to the group on the GID's
     * netdev makes the host an IP member while the test runs, as rdma_cm's join does for IPv4 on
     * RoCE. Closing the returned membership leaves the IP group; the QPs detach when closed.
     */
    static java.io.Closeable joinMulticast(Side side) throws IOException {
        PerftestSettings s = side.s;
        MulticastGroup group = new MulticastGroup(Gid.of(s.addressing().group(s.client())), 0);
        for (int i = 0; i < side.qps.size(); i++) {
            QueuePair qp = side.qps.get(i);
            qp.attachMulticast(group);
            PeerInfo p = side.records.mine.get(i);
            side.records.mine.set(i, new PeerInfo(group.lid(), p.outReads(), p.qpn(), p.psn(), p.rkey(), p.vaddr(),
                    group.gid().bytes(), p.srqn()));
        }
        Optional<GidEntry> source = side.session.context().gid(s.ibPort(), side.session.gidIndex());
        NetworkInterface netdev = source.isPresent() && source.get().ifindex() > 0
                ? NetworkInterface.getByIndex(source.get().ifindex()) : null;
        if (netdev == null) {
            return () -> { };
        }
        InetAddress address = InetAddress.getByAddress(group.gid().bytes());
        if (group.gid().isIpv4Mapped()) {
            byte[] b = group.gid().bytes();
            address = InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
        }
        MulticastSocket ipMember = new MulticastSocket(0);
        try {
            ipMember.joinGroup(new InetSocketAddress(address, 0), netdev);
        } catch (IOException e) {
            ipMember.close();
            throw new IOException("-g: cannot join the IP group " + address.getHostAddress() + " on " + netdev.getName()
                    + ": " + e.getMessage(), e);
        }
        return ipMember;
    }
}
