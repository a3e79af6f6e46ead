// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_cq_moderation_caps;
import dev.jrdma.bindings.generated.ibv_device_attr;
import dev.jrdma.bindings.generated.ibv_device_attr_ex;
import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_odp_caps;
import dev.jrdma.bindings.generated.ibv_packet_pacing_caps;
import dev.jrdma.bindings.generated.ibv_port_attr;
import dev.jrdma.bindings.generated.ibv_rss_caps;
import dev.jrdma.bindings.generated.ibv_tso_caps;
import dev.jrdma.bindings.generated.ibv_values_ex;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.generated.timespec;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.SurfaceVerbs;
import dev.jrdma.bindings.shim.VerbsContextOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The port and device queries of {@link Context}: device and port attributes, the whole GID
 * table in one call, the raw GID and P_Key tables, the device clock, per-QP-type offloads and
 * the Ethernet next hop of a GID; kept apart from Context, which holds the device's factories.
 * Each runs with the context held (see {@link NativeResource#hold}).
 */
final class ContextQueries {
    private ContextQueries() {}

    /** {@code IBV_VALUES_MASK_RAW_CLOCK}. */
    private static final int RAW_CLOCK = 1;
    /** What ibv_resolve_eth_l2_from_gid leaves in vid when the route has no VLAN. */
    private static final int NO_VLAN = 0xffff;
    private static final int ETHERNET_ADDRESS_BYTES = 6;

    /** Port numbers are a u8 counting from 1. */
    static void checkPort(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, not " + port);
        }
    }

    /** {@link Context#queryDevice}: {@code ibv_query_device_ex}, with the classic attributes it embeds. */
    static DeviceAttributes device(Context context, MemorySegment handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ex = arena.allocate(ibv_device_attr_ex.layout());
            RdmaException.check(Verb.IBV_QUERY_DEVICE_EX, context,
                    VerbsContextOps.ibv_query_device_ex(handle, MemorySegment.NULL, ex));
            return read(ex);
        }
    }

    /**
     * {@link Context#queryDeviceLegacy}: {@code ibv_query_device} alone, into the classic part of
     * a zeroed extended structure, so the extended fields read zero exactly as they do when
     * ibv_query_device_ex falls back to it for a provider without query_device_ex.
     */
    static DeviceAttributes deviceLegacy(Context context, MemorySegment handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ex = arena.allocate(ibv_device_attr_ex.layout());
            RdmaException.check(Verb.IBV_QUERY_DEVICE, context,
                    rdma_h.ibv_query_device(handle, ibv_device_attr_ex.orig_attr(ex)));
            return read(ex);
        }
    }

    private static DeviceAttributes read(MemorySegment ex) {
        MemorySegment a = ibv_device_attr_ex.orig_attr(ex);
        return new DeviceAttributes(ibv_device_attr.fw_ver(a).getString(0),
                Long.reverseBytes(ibv_device_attr.node_guid(a)), Long.reverseBytes(ibv_device_attr.sys_image_guid(a)),
                ibv_device_attr.max_mr_size(a), ibv_device_attr.page_size_cap(a), ibv_device_attr.vendor_id(a),
                ibv_device_attr.vendor_part_id(a), ibv_device_attr.hw_ver(a), ibv_device_attr.max_qp(a),
                ibv_device_attr.max_qp_wr(a), ibv_device_attr.max_sge(a), ibv_device_attr.max_cq(a),
                ibv_device_attr.max_cqe(a), ibv_device_attr.max_mr(a), ibv_device_attr.max_pd(a),
                ibv_device_attr.max_qp_rd_atom(a), ibv_device_attr.max_qp_init_rd_atom(a),
                ibv_device_attr.max_srq(a), ibv_device_attr.max_ah(a), ibv_device_attr.max_mw(a),
                AtomicCapability.of(ibv_device_attr.atomic_cap(a)), Byte.toUnsignedInt(ibv_device_attr.phys_port_cnt(a)),
                ibv_device_attr.device_cap_flags(a), ibv_device_attr_ex.device_cap_flags_ex(ex),
                ibv_device_attr_ex.completion_timestamp_mask(ex), ibv_device_attr_ex.hca_core_clock(ex),
                ibv_odp_caps.general_caps(ibv_device_attr_ex.odp_caps(ex)), ibv_device_attr_ex.max_dm_size(ex),
                Short.toUnsignedInt(ibv_cq_moderation_caps.max_cq_count(ibv_device_attr_ex.cq_mod_caps(ex))),
                Short.toUnsignedInt(ibv_cq_moderation_caps.max_cq_period(ibv_device_attr_ex.cq_mod_caps(ex))),
                ibv_tso_caps.max_tso(ibv_device_attr_ex.tso_caps(ex)),
                DeviceAttributes.TagMatching.read(ex), DeviceAttributes.Rss.read(ex),
                DeviceAttributes.PacketPacing.read(ex), ibv_device_attr_ex.raw_packet_caps(ex));
    }

    /** {@link Context#queryPort}: {@code ibv_query_port}. */
    static PortAttributes port(Context context, MemorySegment handle, int port) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = arena.allocate(ibv_port_attr.layout());
            RdmaException.check(Verb.IBV_QUERY_PORT, context + " port " + port, VerbsContextOps.ibv_query_port(handle, port, p));
            return new PortAttributes(port, PortState.of(ibv_port_attr.state(p)), Mtu.of(ibv_port_attr.max_mtu(p)),
                    Mtu.of(ibv_port_attr.active_mtu(p)), Short.toUnsignedInt(ibv_port_attr.lid(p)),
                    Short.toUnsignedInt(ibv_port_attr.sm_lid(p)), ibv_port_attr.gid_tbl_len(p),
                    LinkLayer.of(Byte.toUnsignedInt(ibv_port_attr.link_layer(p))),
                    Byte.toUnsignedInt(ibv_port_attr.active_speed(p)), Byte.toUnsignedInt(ibv_port_attr.active_width(p)),
                    Integer.toUnsignedLong(ibv_port_attr.max_msg_sz(p)), Byte.toUnsignedInt(ibv_port_attr.phys_state(p)));
        }
    }

    /** The GID table length of each port, by port number minus 1. */
    static int[] gidTableLengths(Context context) {
        int ports = context.queryDevice().physicalPortCount();
        int[] lengths = new int[ports];
        for (int port = Context.FIRST_PORT; port <= ports; port++) {
            lengths[port - 1] = context.queryPort(port).gidTableLength();
        }
        return lengths;
    }

    /** The valid GID entries of every port, in one {@code ibv_query_gid_table} call. */
    static List<GidEntry> gidTable(Context context, MemorySegment handle, int ports, int[] tableLengths) {
        long capacity = 0;
        for (int length : tableLengths) {
            capacity += length;
        }
        List<GidEntry> entries = new ArrayList<>();
        if (capacity == 0) {
            return List.of();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment table = arena.allocate(ibv_gid_entry.layout(), capacity);
            long n = InlineVerbs.ibv_query_gid_table(handle, table, capacity, 0);
            if (n < 0) {
                throw RdmaException.of(Verb.IBV_QUERY_GID_TABLE, context + " (" + ports + " ports, " + capacity
                        + " entries)", (int) -n);
            }
            for (long i = 0; i < n; i++) {
                MemorySegment e = table.asSlice(i * ibv_gid_entry.layout().byteSize(), ibv_gid_entry.layout());
                Gid gid = Gid.read(ibv_gid_entry.gid(e));
                if (!gid.equals(Gid.ZERO)) {
                    entries.add(entry(e, gid));
                }
            }
        }
        return List.copyOf(entries);
    }

    /** GID table entry {@code index} of {@code port} ({@code ibv_query_gid_ex}); empty when unused. */
    static Optional<GidEntry> gid(Context context, MemorySegment handle, int port, int index, MemorySegment entry) {
        int rc = InlineVerbs.ibv_query_gid_ex(handle, port, index, entry, 0);
        if (rc == Errno.ENODATA) {
            return Optional.empty();
        }
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_QUERY_GID_EX, context + " port " + port + " index " + index, rc);
        }
        Gid gid = Gid.read(ibv_gid_entry.gid(entry));
        if (gid.equals(Gid.ZERO)) {
            return Optional.empty();
        }
        return Optional.of(entry(entry, gid));
    }

    private static GidEntry entry(MemorySegment e, Gid gid) {
        return new GidEntry(ibv_gid_entry.gid_index(e), ibv_gid_entry.port_num(e), gid,
                GidType.of(ibv_gid_entry.gid_type(e)), ibv_gid_entry.ndev_ifindex(e));
    }

    /** GID {@code index} of {@code port} as {@code ibv_query_gid} reads it: zero for an unused entry. */
    static Gid rawGid(Context context, MemorySegment handle, int port, int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gid = arena.allocate(Gid.BYTES);
            int rc = rdma_h.ibv_query_gid(handle, (byte) port, index, gid);
            if (rc != 0) {
                // Returns -1 and leaves no errno for an index past the table (it reads sysfs).
                throw RdmaException.of(Verb.IBV_QUERY_GID, context + " port " + port + " index " + index,
                        rc < 0 ? Errno.EINVAL : rc);
            }
            return Gid.read(gid);
        }
    }

    /** P_Key table entry {@code index} of {@code port}, in host order. */
    static int pkey(Context context, MemorySegment handle, int port, int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pkey = arena.allocate(JAVA_SHORT);
            int rc = rdma_h.ibv_query_pkey(handle, (byte) port, index, pkey);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_QUERY_PKEY, context + " port " + port + " index " + index,
                        rc < 0 ? Errno.EINVAL : rc);
            }
            // __be16 in the table: swap to the number it denotes.
            return Short.toUnsignedInt(Short.reverseBytes(pkey.get(JAVA_SHORT, 0)));
        }
    }

    /** The index of {@code pkey} in the P_Key table of {@code port}, if it is there. */
    static OptionalInt pkeyIndex(MemorySegment handle, int port, int pkey) {
        int index = rdma_h.ibv_get_pkey_index(handle, (byte) port, Short.reverseBytes((short) pkey));
        return index < 0 ? OptionalInt.empty() : OptionalInt.of(index);
    }

    /** The device clock's current value, {@code raw_clock} of {@code ibv_query_rt_values_ex}, in ns. */
    static long rawClock(Context context, MemorySegment handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment values = arena.allocate(ibv_values_ex.layout());
            ibv_values_ex.comp_mask(values, RAW_CLOCK);
            int rc = SurfaceVerbs.ibv_query_rt_values_ex(handle, values);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_QUERY_RT_VALUES_EX, context, rc,
                        "reading the device's raw clock (IBV_VALUES_MASK_RAW_CLOCK)"
                                + (rc == Errno.EOPNOTSUPP ? ": the provider has no real-time clock query" : ""));
            }
            if ((ibv_values_ex.comp_mask(values) & RAW_CLOCK) == 0) {
                throw RdmaException.of(Verb.IBV_QUERY_RT_VALUES_EX, context, Errno.EOPNOTSUPP,
                        "the provider answered without the raw clock (comp_mask " + ibv_values_ex.comp_mask(values) + ")");
            }
            MemorySegment clock = ibv_values_ex.raw_clock(values);
            return timespec.tv_sec(clock) * 1_000_000_000L + timespec.tv_nsec(clock);
        }
    }

    /** Whether the device offers {@code offload} on queue pairs of {@code type}, from the extended device query. */
    static boolean supportsOffload(Context context, MemorySegment handle, QueuePairOffload offload, QueuePairType type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ex = arena.allocate(ibv_device_attr_ex.layout());
            RdmaException.check(Verb.IBV_QUERY_DEVICE_EX, context, VerbsContextOps.ibv_query_device_ex(handle,
                    MemorySegment.NULL, ex));
            int caps = switch (offload) {
                case TSO -> ibv_tso_caps.supported_qpts(ibv_device_attr_ex.tso_caps(ex));
                case RSS -> ibv_rss_caps.supported_qpts(ibv_device_attr_ex.rss_caps(ex));
                case PACKET_PACING -> ibv_packet_pacing_caps.supported_qpts(ibv_device_attr_ex.packet_pacing_caps(ex));
            };
            return SurfaceVerbs.ibv_is_qpt_supported(caps, type.value());
        }
    }

    /** The MAC (and VLAN) of the next hop towards {@code destination}, leaving from GID entry {@code source}. */
    static EthernetL2Address resolveEthernet(Context context, MemorySegment handle, GidEntry source, Gid destination) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_ah_attr.layout());
            ibv_ah_attr.port_num(attr, (byte) source.port());
            ibv_ah_attr.is_global(attr, (byte) 1);
            MemorySegment grh = ibv_ah_attr.grh(attr);
            destination.write(ibv_global_route.dgid(grh));
            ibv_global_route.sgid_index(grh, (byte) source.index());
            MemorySegment mac = arena.allocate(ETHERNET_ADDRESS_BYTES);
            MemorySegment vid = arena.allocate(JAVA_SHORT);
            int rc = SurfaceVerbs.ibv_resolve_eth_l2_from_gid(handle, attr, mac, vid);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_RESOLVE_ETH_L2_FROM_GID, context + " port " + source.port()
                        + " GID index " + source.index(), Math.abs(rc), "to " + destination);
            }
            byte[] bytes = mac.toArray(JAVA_BYTE);
            int vlan = Short.toUnsignedInt(vid.get(JAVA_SHORT, 0));
            return new EthernetL2Address(HexFormat.ofDelimiter(":").formatHex(bytes),
                    vlan == NO_VLAN ? OptionalInt.empty() : OptionalInt.of(vlan));
        }
    }
}
