// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.Context;
import dev.jrdma.DeviceAttributes;
import dev.jrdma.Gid;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.LinkLayer;
import dev.jrdma.Mtu;
import dev.jrdma.PortAttributes;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.TransportType;
import dev.jrdma.tools.runner.Console;
import dev.jrdma.tools.runner.ExitCode;
import dev.jrdma.tools.runner.NoDevice;
import dev.jrdma.tools.runner.PerftestRunner;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code jrdma devices} and {@code jrdma devinfo} (like ibv_devices and ibv_devinfo). */
final class DeviceCommands {
    private DeviceCommands() {
    }

    @Command(name = "devices", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List the RDMA devices (like ibv_devices).")
    static final class Devices implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            List<RdmaDevice> devices = Rdma.devices();
            if (devices.isEmpty()) {
                // ibv_devices prints its header alone; a first user needs to be told what to do.
                CommandConsole.of(spec).error(NoDevice.MESSAGE);
                return ExitCode.FAILURE;
            }
            PrintWriter out = spec.commandLine().getOut();
            out.print(devicesText(devices));
            out.flush();
            return 0;
        }
    }

    /** ibv_devices' layout: "    %-16s\t   node GUID" header, then one "    %-16s\t%016x" line per device. */
    static String devicesText(List<RdmaDevice> devices) {
        StringBuilder sb = new StringBuilder();
        sb.append("    ").append(pad("device", 16)).append("\t   node GUID\n");
        sb.append("    ").append(pad("------", 16)).append("\t----------------\n");
        for (RdmaDevice d : devices) {
            sb.append("    ").append(pad(d.name(), 16)).append('\t').append(d.nodeGuidText()).append('\n');
        }
        return sb.toString();
    }

    @Command(name = "devinfo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Show device and port attributes (like ibv_devinfo).")
    static final class DevInfo implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Only this device (default: all).")
        String device;

        @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "Only this port (default: all).")
        Integer port;

        @Option(names = {"-v", "--verbose"}, description = "All attributes, GID table included.")
        boolean verbose;

        @Override
        public Integer call() {
            if (port != null && port < 1) {
                throw UsageErrors.usage(spec, "option '--ib-port' (-i): must be >= 1, got " + port);
            }
            Console console = CommandConsole.of(spec);
            List<RdmaDevice> devices = Rdma.devices();
            if (device != null) {
                RdmaDevice found = PerftestRunner.findDevice(console, devices, device);
                if (found == null) {
                    return ExitCode.FAILURE;
                }
                devices = List.of(found);
            }
            if (devices.isEmpty()) {
                console.error(NoDevice.MESSAGE);
                return ExitCode.FAILURE;
            }
            PrintWriter out = spec.commandLine().getOut();
            for (RdmaDevice d : devices) {
                try (Context context = d.open()) {
                    DeviceAttributes a = context.queryDevice();
                    if (port != null && port > a.physicalPortCount()) {
                        console.error(d.name() + " has " + a.physicalPortCount() + " port(s), no port " + port);
                        return ExitCode.FAILURE;
                    }
                    out.print(devinfoText(context, d, a, port, verbose));
                    out.println();
                }
            }
            out.flush();
            return 0;
        }
    }

    /** ibv_devinfo's text for one device (without the trailing empty line). */
    static String devinfoText(Context context, RdmaDevice d, DeviceAttributes a, Integer onlyPort, boolean verbose) {
        StringBuilder sb = new StringBuilder();
        sb.append("hca_id:\t").append(d.name()).append('\n');
        sb.append("\ttransport:\t\t\t").append(transport(d.transportType())).append('\n');
        sb.append("\tfw_ver:\t\t\t\t").append(a.firmwareVersion()).append('\n');
        sb.append("\tnode_guid:\t\t\t").append(guid(a.nodeGuid())).append('\n');
        sb.append("\tsys_image_guid:\t\t\t").append(guid(a.systemImageGuid())).append('\n');
        sb.append("\tvendor_id:\t\t\t0x").append(String.format("%04x", a.vendorId())).append('\n');
        sb.append("\tvendor_part_id:\t\t\t").append(a.vendorPartId()).append('\n');
        sb.append("\thw_ver:\t\t\t\t0x").append(Integer.toHexString(a.hardwareVersion()).toUpperCase(Locale.ROOT))
          .append('\n');
        sb.append("\tphys_port_cnt:\t\t\t").append(a.physicalPortCount()).append('\n');
        if (verbose) {
            sb.append("\tmax_mr_size:\t\t\t0x").append(Long.toHexString(a.maxMrSize())).append('\n');
            sb.append("\tpage_size_cap:\t\t\t0x").append(Long.toHexString(a.pageSizeCap())).append('\n');
            sb.append("\tmax_qp:\t\t\t\t").append(a.maxQp()).append('\n');
            sb.append("\tmax_qp_wr:\t\t\t").append(a.maxQpWr()).append('\n');
            sb.append("\tdevice_cap_flags:\t\t0x").append(String.format("%08x", a.deviceCapabilityFlags())).append('\n');
            sb.append("\tmax_sge:\t\t\t").append(a.maxSge()).append('\n');
            sb.append("\tmax_cq:\t\t\t\t").append(a.maxCq()).append('\n');
            sb.append("\tmax_cqe:\t\t\t").append(a.maxCqe()).append('\n');
            sb.append("\tmax_mr:\t\t\t\t").append(a.maxMr()).append('\n');
            sb.append("\tmax_pd:\t\t\t\t").append(a.maxPd()).append('\n');
            sb.append("\tmax_qp_rd_atom:\t\t\t").append(a.maxQpRdAtom()).append('\n');
            sb.append("\tmax_qp_init_rd_atom:\t\t").append(a.maxQpInitRdAtom()).append('\n');
            sb.append("\tatomic_cap:\t\t\tATOMIC_").append(a.atomicCapability()).append(" (")
              .append(a.atomicCapability().value()).append(")\n");
            sb.append("\tmax_mw:\t\t\t\t").append(a.maxMw()).append('\n');
            sb.append("\tmax_ah:\t\t\t\t").append(a.maxAh()).append('\n');
            sb.append("\tmax_srq:\t\t\t").append(a.maxSrq()).append('\n');
            sb.append("\tdevice_cap_flags_ex:\t\t0x").append(Long.toHexString(a.deviceCapabilityFlagsEx())
                    .toUpperCase(Locale.ROOT)).append('\n');
        }
        for (int p = 1; p <= a.physicalPortCount(); p++) {
            if (onlyPort != null && onlyPort != p) {
                continue;
            }
            PortAttributes pa = context.queryPort(p);
            sb.append("\t\tport:\t").append(p).append('\n');
            sb.append("\t\t\tstate:\t\t\tPORT_").append(pa.state()).append(" (").append(pa.state().value())
              .append(")\n");
            sb.append("\t\t\tmax_mtu:\t\t").append(mtu(pa.maxMtu())).append('\n');
            sb.append("\t\t\tactive_mtu:\t\t").append(mtu(pa.activeMtu())).append('\n');
            sb.append("\t\t\tsm_lid:\t\t\t").append(pa.smLid()).append('\n');
            sb.append("\t\t\tport_lid:\t\t").append(pa.lid()).append('\n');
            sb.append("\t\t\tlink_layer:\t\t").append(linkLayer(pa.linkLayer())).append('\n');
            if (verbose) {
                sb.append("\t\t\tmax_msg_sz:\t\t0x").append(Long.toHexString(pa.maxMessageSize())).append('\n');
                sb.append("\t\t\tgid_tbl_len:\t\t").append(pa.gidTableLength()).append('\n');
                sb.append("\t\t\tactive_width:\t\t").append(pa.lanes() == 0 ? "invalid width" : pa.lanes() + "X")
                  .append(" (").append(pa.activeWidth()).append(")\n");
                sb.append("\t\t\tactive_speed:\t\t").append(pa.laneGbps() == 0 ? "invalid speed"
                        : String.format(Locale.ROOT, "%.1f Gbps", pa.laneGbps()))
                  .append(" (").append(pa.activeSpeed()).append(")\n");
                sb.append("\t\t\tphys_state:\t\t").append(physState(pa.physicalState())).append(" (")
                  .append(pa.physicalState()).append(")\n");
                for (GidEntry g : context.gidTable(p)) {
                    sb.append("\t\t\tGID[").append(String.format("%3d", g.index())).append("]:\t\t")
                      .append(gidText(g.gid())).append(", ").append(gidType(g.type())).append('\n');
                }
            }
        }
        return sb.toString();
    }

    static String transport(TransportType t) {
        return switch (t) {
            case IB -> "InfiniBand (0)";
            case IWARP -> "iWARP (1)";
            case USNIC -> "usNIC (2)";
            case USNIC_UDP -> "usNIC UDP (3)";
            case UNSPECIFIED -> "unspecified (4)";
            default -> "invalid transport";
        };
    }

    /** xxxx:xxxx:xxxx:xxxx, as ibv_devinfo prints a GUID. */
    static String guid(long g) {
        return String.format("%04x:%04x:%04x:%04x", (g >>> 48) & 0xffff, (g >>> 32) & 0xffff, (g >>> 16) & 0xffff,
                g & 0xffff);
    }

    static String mtu(Mtu m) {
        return m.bytes() + " (" + m.value() + ")";
    }

    static String linkLayer(LinkLayer l) {
        return switch (l) {
            case ETHERNET -> "Ethernet";
            case INFINIBAND, UNSPECIFIED -> "InfiniBand";
        };
    }

    static String physState(int s) {
        return switch (s) {
            case 1 -> "SLEEP";
            case 2 -> "POLLING";
            case 3 -> "DISABLED";
            case 4 -> "PORT_CONFIGURATION TRAINNING";
            case 5 -> "LINK_UP";
            case 6 -> "LINK_ERROR_RECOVERY";
            case 7 -> "PHY TEST";
            default -> "invalid physical state";
        };
    }

    static String gidType(GidType t) {
        return switch (t) {
            case IB -> "IB";
            case ROCE_V1 -> "RoCE v1";
            case ROCE_V2 -> "RoCE v2";
        };
    }

    /** inet_ntop's IPv6 text (RFC 5952): the longest run of zero groups as "::", IPv4-mapped as ::ffff:a.b.c.d. */
    static String gidText(Gid gid) {
        byte[] b = gid.bytes();
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        if (gid.isIpv4Mapped()) {
            return "::ffff:" + (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] == 0) {
                int j = i;
                while (j < 8 && g[j] == 0) {
                    j++;
                }
                if (j - i > bestLen) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestLen < 2) {
            bestStart = -1;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
