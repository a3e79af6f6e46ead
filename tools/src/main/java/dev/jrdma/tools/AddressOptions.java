// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.exclusive;
import static dev.jrdma.tools.UsageErrors.optional;
import static dev.jrdma.tools.UsageErrors.range;
import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.AddressSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.TestKind.Connection;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The addressing, QoS, multicast and port options (perftest's names and meanings, per test as
 * perftest's usage() offers them) and their resolution into {@link AddressSettings}: {@link Common}
 * on every test, {@link Multicast} on the send tests, {@link Connectionless} on send-bw,
 * {@link DualPort} on the BW tests.
 */
final class AddressOptions {
    private AddressOptions() {
    }

    /** perftest's DEF_HOP_LIMIT: the only -L value a non-raw-Ethernet test accepts. */
    static final int DEFAULT_HOP_LIMIT = 64;

    /** Offered by every test. */
    static final class Common {
        @Option(names = {"-T", "--tos"}, paramLabel = "TOS",
                description = "Type of service (0-255) of the rdma_cm test QP; only with -R (rdma_cm sets the GRH "
                        + "traffic class from it).")
        Integer tos;

        @Option(names = "--tclass", paramLabel = "VALUE",
                description = "The traffic class (0-255) in every QP's GRH: on RoCE v2 the IP header's DSCP and ECN "
                        + "bits, which PFC and ECN act on.")
        Integer trafficClass;

        @Option(names = "--flow_label", paramLabel = "FL0[,FL1...]",
                description = "The GRH flow label of each QP (0-0xFFFFF), given to the QPs round robin.")
        String flowLabels;

        @Option(names = {"-L", "--hop_limit"}, paramLabel = "HOPS",
                description = "Hop limit: perftest sets it on raw Ethernet QPs only; its tests' GRH hop limit is "
                        + "255, so any other value than the default 64 is refused, as perftest does.")
        Integer hopLimit;

        @Option(names = "--pkey_index", paramLabel = "INDEX",
                description = "P_Key table index of the QPs (default 0); an index the port's table lacks exits 1.")
        Integer pkeyIndex;

        @Option(names = "--ipv6", description = "Use an IPv6 RoCE GID (default: an IPv4-mapped one); without -x.")
        boolean ipv6;

        @Option(names = "--ipv6-addr",
                description = "The out-of-band connection goes over IPv6: the host must resolve to an IPv6 address.")
        boolean ipv6Address;

        @Option(names = {"--bind_source_ip", "--source_ip"}, paramLabel = "IP",
                description = "Source IP of the out-of-band connection (client) or the address the server listens "
                        + "on; an IPv6 one needs --ipv6-addr. --source_ip is perftest 6.06's name for it (the "
                        + "perftest on the wire here); perftest 26.04 keeps that name for the raw Ethernet tests "
                        + "only, with another meaning there.")
        String bindSourceIp;

        @Option(names = {"-z", "--comm_rdma_cm"},
                description = "Exchange the out-of-band messages over an rdma_cm connection on the -p port instead "
                        + "of TCP; the test QPs are still connected by verbs (-R does both).")
        boolean commRdmaCm;

        @Option(names = "--dont_xchg_versions",
                description = "Exchange no version, system data and MTU with the peer: each side uses its own MTU. "
                        + "perftest (5.70 and later) then refuses the peer's empty version and exits, so this "
                        + "works between jrdma sides only.")
        boolean dontExchangeVersions;

        @Option(names = "--force-link", paramLabel = "IB|Ethernet",
                description = "The link layer to assume; jrdma checks it against the port's and refuses another.")
        String forceLink;
    }

    /** -g and -M: offered by the send tests. */
    static final class Multicast {
        @Option(names = {"-g", "--mcg"},
                description = "Send to a multicast group with the receiving side's QP attached to it (UD, one QP; "
                        + "-c becomes UD).")
        boolean multicast;

        @Option(names = {"-M", "--MGID"}, paramLabel = "MGID",
                description = "The group's GID with -g: 16 colon-separated byte values as perftest takes them "
                        + "(255:14:0:...:1), or an IP multicast address (ff0e::1, 239.1.2.3: IPv4-mapped, for an "
                        + "IPv4 GID); default ff01:0:0:2:c985:: (the client's one up where both sides receive).")
        String mgid;
    }

    /** --connectionless: offered by send-bw. */
    static final class Connectionless {
        @Option(names = "--connectionless",
                description = "A receiver of multicast traffic with no out-of-band peer (no host, -g, "
                        + "--run_infinitely): the QP joins the group (-M) and reports, every -D seconds, what any "
                        + "sender to the group delivers, until SIGINT. Nothing is exchanged, so the MTU is the "
                        + "port's (or -m).")
        boolean connectionless;
    }

    /** -O: offered by the BW tests. */
    static final class DualPort {
        @Option(names = {"-O", "--dualport"},
                description = "perftest: run on ports 1 and 2. jrdma asks the device and refuses it (exit 2, one "
                        + "line): with one port (rxe) naming the port count; with two, because jrdma does not "
                        + "implement dual-port runs.")
        boolean dualPort;
    }

    /**
     * The validated settings, perftest's rules applied (perftest_parameters.c force_dependecies):
     * -T only with -R, -L only its default, -g not with -b, -q above 1, -R or -O.
     *
     * @throws ParameterException naming the option
     */
    static AddressSettings resolve(CommandSpec spec, TestKind kind, String host, Common c, Multicast m,
                                   Connectionless cl, DualPort d, Connection connection, boolean rdmaCm,
                                   boolean bidirectional, int qps) {
        if (c == null) {
            return AddressSettings.DEFAULT;
        }
        int tos = optional(spec, "'--tos' (-T)", c.tos, 0, 255, -1);
        if (c.tos != null && !rdmaCm) {
            // perftest: "TOS only valid for rdma_cm based QP and RawEth QP"
            throw usage(spec, "option '--tos' (-T): the type of service is an rdma_cm option: give -R too "
                    + "(for the GRH of verbs-connected QPs use --tclass)");
        }
        int trafficClass = optional(spec, "'--tclass'", c.trafficClass, 0, 255, 0);
        List<Integer> labels = c.flowLabels == null ? List.of() : flowLabels(spec, c.flowLabels);
        if (optional(spec, "'--hop_limit' (-L)", c.hopLimit, 0, 255, DEFAULT_HOP_LIMIT) != DEFAULT_HOP_LIMIT) {
            // perftest: "Hop limit only valid for RawEth QP"
            throw usage(spec, "option '--hop_limit' (-L): the hop limit is a raw Ethernet option; perftest's "
                    + "and jrdma's tests send with GRH hop limit 255");
        }
        int pkeyIndex = optional(spec, "'--pkey_index'", c.pkeyIndex, 0, 0xFFFF, 0);
        if (c.bindSourceIp != null) {
            InetAddress source = literal(spec, "'--bind_source_ip'", c.bindSourceIp);
            if (source instanceof Inet6Address && !c.ipv6Address) {
                throw usage(spec, "option '--bind_source_ip': " + c.bindSourceIp + " is an IPv6 address: give "
                        + "--ipv6-addr too");
            }
            if (rdmaCm) {
                throw usage(spec, "option '--bind_source_ip': not implemented with -R in jrdma (rdma_cm resolves "
                        + "the source address itself)");
            }
        }
        AddressSettings.Link link = null;
        if (c.forceLink != null) {
            // perftest's str_link_layer: strncasecmp on "IB" (2 letters) and "Ethernet" (8).
            String v = c.forceLink;
            if (v.regionMatches(true, 0, "IB", 0, 2)) {
                link = AddressSettings.Link.IB;
            } else if (v.regionMatches(true, 0, "Ethernet", 0, 8)) {
                link = AddressSettings.Link.ETHERNET;
            } else {
                throw usage(spec, "option '--force-link': must be IB or Ethernet, got '" + v + "'");
            }
        }
        boolean multicast = m != null && m.multicast;
        byte[] mgid = null;
        if (m != null && m.mgid != null) {
            if (!multicast) {
                throw usage(spec, "option '--MGID' (-M): names the group of -g (--mcg): give -g too");
            }
            mgid = mgid(spec, m.mgid);
        }
        if (multicast) {
            if (rdmaCm) {
                throw exclusive(spec, "'--mcg' (-g)", "'--rdma_cm' (-R)",
                        "perftest does not support multicast with rdma_cm");
            }
            if (bidirectional) {
                throw exclusive(spec, "'--mcg' (-g)", "'--bidirectional' (-b)");
            }
            if (qps > 1) {
                throw usage(spec, "option '--mcg' (-g): one QP only (perftest attaches 1 QP to the group), got -q "
                        + qps);
            }
        }
        boolean connectionless = cl != null && cl.connectionless;
        if (connectionless && (host != null || !multicast || !kind.bandwidth()
                || !spec.commandLine().getParseResult().hasMatchedOption("--run_infinitely"))) {
            throw usage(spec, "option '--connectionless': only for a multicast UD BW server that runs infinitely "
                    + "(no host, -g, --run_infinitely)");
        }
        boolean dualPort = d != null && d.dualPort;
        if (dualPort && multicast) {
            throw exclusive(spec, "'--dualport' (-O)", "'--mcg' (-g)");
        }
        if (dualPort && rdmaCm) {
            throw exclusive(spec, "'--dualport' (-O)", "'--rdma_cm' (-R)");
        }
        return new AddressSettings(tos, trafficClass, labels, pkeyIndex, c.ipv6, c.ipv6Address, c.bindSourceIp,
                c.commRdmaCm, c.dontExchangeVersions, link, multicast, mgid, connectionless, dualPort);
    }

    /** --flow_label's comma-separated list; numbers as strtol with base 0 reads them. */
    private static List<Integer> flowLabels(CommandSpec spec, String text) {
        List<Integer> labels = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            long v = number(spec, "'--flow_label'", part.trim());
            range(spec, "'--flow_label'", v, 0, 0xFFFFF);
            labels.add((int) v);
        }
        return labels;
    }

    /**
     * -M: perftest's form (16 byte values separated by ':', each as strtoll base 0 reads it) or an
     * IPv6 address; it must be a multicast GID (ff00::/8).
     */
    static byte[] mgid(CommandSpec spec, String text) {
        String[] parts = text.split(":", -1);
        byte[] gid = new byte[16];
        if (parts.length == 16 && !text.contains("::")) {
            for (int i = 0; i < 16; i++) {
                long v = number(spec, "'--MGID' (-M)", parts[i].trim());
                range(spec, "'--MGID' (-M) byte " + i, v, 0, 255);
                gid[i] = (byte) v;
            }
        } else {
            InetAddress a = literal(spec, "'--MGID' (-M)", text);
            if (a instanceof Inet6Address) {
                gid = a.getAddress();
            } else {
                // An IPv4 group (or ::ffff:a.b.c.d, which Java reads as IPv4): its IPv4-mapped GID.
                byte[] v4 = a.getAddress();
                gid[10] = (byte) 0xff;
                gid[11] = (byte) 0xff;
                System.arraycopy(v4, 0, gid, 12, 4);
            }
        }
        if (!AddressSettings.isMulticastGid(gid)) {
            throw usage(spec, "option '--MGID' (-M): '" + text + "' is no multicast GID (ff00::/8, or IPv4-mapped "
                    + "224.0.0.0/4)");
        }
        return gid;
    }

    private static long number(CommandSpec spec, String name, String s) {
        try {
            if (s.startsWith("0x") || s.startsWith("0X")) {
                return Long.parseLong(s.substring(2), 16);
            }
            if (s.length() > 1 && s.startsWith("0")) {
                return Long.parseLong(s.substring(1), 8);
            }
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw usage(spec, "option " + name + ": '" + s + "' is not a number");
        }
    }

    /** An IP literal (no name lookup: a source address or a group is given as a number). */
    private static InetAddress literal(CommandSpec spec, String name, String text) {
        if (!text.matches("[0-9a-fA-F:.%]+") || !(text.contains(".") || text.contains(":"))) {
            throw usage(spec, "option " + name + ": '" + text + "' is not an IP address");
        }
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw usage(spec, "option " + name + ": '" + text + "' is not an IP address");
        }
    }
}
