// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.util.List;

/**
 * Addressing, QoS, multicast and ports: -T/--tos, --tclass, --flow_label, -L, --pkey_index,
 * --ipv6, --ipv6-addr, --bind_source_ip, -z, --dont_xchg_versions, --force-link, -g, -M,
 * --connectionless, -O.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 *
 * @param tos                  -T/--tos: the rdma_cm type of service of the test QP (-R only), or -1
 * @param trafficClass         --tclass: the GRH traffic class of every QP's route (0 when not given,
 *                             as perftest); on RoCE v2 the IP header's DSCP and ECN bits
 * @param flowLabels           --flow_label: the GRH flow labels, given to the QPs round robin (QP i
 *                             gets label i mod n); empty for none
 * @param pkeyIndex            --pkey_index: the P_Key table entry the QPs' INIT transition names
 * @param ipv6Gid              --ipv6: pick an IPv6 RoCE GID rather than an IPv4-mapped one (without -x)
 * @param ipv6Address          --ipv6-addr: the out-of-band connection goes over IPv6
 * @param bindSourceIp         --bind_source_ip: the local address the out-of-band connection
 *                             leaves from, or null for the routing table's choice
 * @param commRdmaCm           -z: exchange over rdma_cm (-R does too)
 * @param dontExchangeVersions --dont_xchg_versions: no version, system data and MTU exchange
 * @param forceLink            --force-link: the link layer the test assumes, or null for the port's
 * @param multicast            -g/--mcg: UD sends to a multicast group the receiving QP is attached to
 * @param mgid                 -M/--MGID: the group's GID (16 bytes), or null for perftest's default
 * @param connectionless       --connectionless: a multicast server without an out-of-band peer
 * @param dualPort             -O/--dualport: run on ports 1 and 2
 */
public record AddressSettings(int tos, int trafficClass, List<Integer> flowLabels, int pkeyIndex, boolean ipv6Gid,
                              boolean ipv6Address, String bindSourceIp, boolean commRdmaCm,
                              boolean dontExchangeVersions, Link forceLink, boolean multicast, byte[] mgid,
                              boolean connectionless, boolean dualPort) {
    /** None of the group's options given. */
    public static final AddressSettings DEFAULT = new AddressSettings(-1, 0, List.of(), 0, false, false, null, false,
            false, null, false, null, false, false);

    /**
     * perftest's default multicast GID (multicast_resources.h MCG_GID): ff01:0:0:2:c985::, an
     * interface-local IPv6 group; the client of a test where both sides receive (send_lat) uses
     * the next one (last byte + 1) so the two groups differ.
     */
    private static final byte[] DEFAULT_MGID = {(byte) 255, 1, 0, 0, 0, 2, (byte) 201, (byte) 133, 0, 0, 0, 0, 0, 0, 0, 0};

    /** --force-link's values (perftest compares the first 2 or 8 letters, ignoring case). */
    public enum Link {
        IB, ETHERNET
    }

    public AddressSettings {
        flowLabels = List.copyOf(flowLabels);
        mgid = mgid == null ? null : mgid.clone();
    }

    @Override
    public byte[] mgid() {
        return mgid == null ? null : mgid.clone();
    }

    /**
     * The options given, for --json/--csv's parameters (none when none is given, so a report
     * without them keeps its fields): tos, traffic_class, flow_labels, pkey_index, ipv6_gid,
     * ipv6_addr, bind_source_ip, dont_xchg_versions, force_link, multicast and mgid.
     */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        if (tos >= 0) {
            p.put("tos", tos);
        }
        if (trafficClass != 0) {
            p.put("traffic_class", trafficClass);
        }
        if (!flowLabels.isEmpty()) {
            p.put("flow_labels", flowLabels);
        }
        if (pkeyIndex != 0) {
            p.put("pkey_index", pkeyIndex);
        }
        if (ipv6Gid) {
            p.put("ipv6_gid", true);
        }
        if (ipv6Address) {
            p.put("ipv6_addr", true);
        }
        if (bindSourceIp != null) {
            p.put("bind_source_ip", bindSourceIp);
        }
        if (dontExchangeVersions) {
            p.put("dont_xchg_versions", true);
        }
        if (forceLink != null) {
            p.put("force_link", forceLink.name());
        }
        if (commRdmaCm) {
            p.put("comm_rdma_cm", true);
        }
        if (multicast) {
            p.put("multicast", true);
            if (mgid != null) {
                p.put("mgid", java.util.HexFormat.ofDelimiter(":").formatHex(mgid));
            }
        }
        if (connectionless) {
            p.put("connectionless", true);
        }
        if (dualPort) {
            p.put("dual_port", true);
        }
        return p;
    }

    /**
     * Whether {@code gid} is a multicast group's: an IPv6 multicast address (ff00::/8) or an
     * IPv4-mapped one in 224.0.0.0/4 (RoCE v2 from an IPv4 GID).
     */
    public static boolean isMulticastGid(byte[] gid) {
        if (gid == null || gid.length != 16) {
            return false;
        }
        if (gid[0] == (byte) 0xff) {
            return true;
        }
        for (int i = 0; i < 10; i++) {
            if (gid[i] != 0) {
                return false;
            }
        }
        return gid[10] == (byte) 0xff && gid[11] == (byte) 0xff && (gid[12] & 0xf0) == 0xe0;
    }

    /** The flow label of QP {@code qp}: --flow_label's list round robin, 0 without it. */
    public int flowLabel(int qp) {
        return flowLabels.isEmpty() ? 0 : flowLabels.get(qp % flowLabels.size());
    }

    /**
     * The group this side's QPs join: -M's, or perftest's default (the client's one up).
     *
     * @param client the side with a host argument
     */
    public byte[] group(boolean client) {
        if (mgid != null) {
            return mgid.clone();
        }
        byte[] g = DEFAULT_MGID.clone();
        if (client) {
            g[15]++;
        }
        return g;
    }
}
