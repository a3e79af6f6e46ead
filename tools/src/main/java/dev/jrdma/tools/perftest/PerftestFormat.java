// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.util.Locale;

/**
 * perftest 6.06's text output, character for character (src/perftest_parameters.h RESULT_* and
 * REPORT_* formats, src/perftest_communication.h address formats, {@code ctx_print_test_info}).
 * The tabs and odd spacing are perftest's own; tools that parse its output depend on them.
 * Numbers follow C's printf: inf/nan print as "inf"/"nan"/"-nan", and {@code %#x} prints 0
 * without the "0x" prefix (so a RoCE LID shows as "0000").
 */
public final class PerftestFormat {
    /** RESULT_LINE: 87 dashes. */
    public static final String LINE = "-".repeat(87);

    /** RESULT_FMT_LAT (note the trailing space). */
    public static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ";
    /** RESULT_FMT_LAT_DUR. */
    public static final String LAT_DURATION_HEADER = " #bytes        #iterations       t_avg[usec]    tps average";
    /** RESULT_FMT. */
    public static final String BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    /** RESULT_FMT_G (--report_gbits). */
    public static final String BW_HEADER_GBITS = " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";

    /** The server's banner before it accepts. */
    public static final String WAITING = "\n************************************\n"
            + "* Waiting for client to connect... *\n"
            + "************************************\n";

    private PerftestFormat() {
    }

    /** The header block ({@code ctx_print_test_info}), ending with the closing dash line. */
    public static String header(TestInfo t) {
        StringBuilder sb = new StringBuilder();
        sb.append(LINE).append('\n');
        sb.append(" ".repeat(20)).append(t.title()).append('\n');
        if (t.useEvent()) {
            sb.append(" Test with events. Using ").append(t.device()).append("_comp").append(t.completionVector()).append('\n');
        }
        sb.append(" Dual-port       : OFF\t\tDevice         : ").append(t.device()).append('\n');
        sb.append(" Number of qps   : ").append(t.numQps()).append("\t\tTransport type : ").append(t.transport()).append('\n');
        sb.append(" Connection type : ").append(t.connection()).append("\t\tUsing SRQ      : ")
          .append(t.useSrq() ? "ON" : "OFF").append('\n');
        sb.append(" PCIe relax order: ").append(t.pcieRelaxOrder()).append('\n');
        sb.append(" ibv_wr* API     : ").append(t.wrApi()).append('\n');
        if (t.client() || t.duplex()) {
            sb.append(" TX depth        : ").append(t.txDepth()).append('\n');
        }
        if (t.postList() > 1) {
            sb.append(" Post List       : ").append(t.postList()).append('\n');
        }
        if (t.verb() == Verb.SEND && (!t.client() || t.duplex())) {
            sb.append(" RX depth        : ").append(t.rxDepth()).append('\n');
        }
        if (t.bandwidth()) {
            sb.append(" CQ Moderation   : ").append(t.cqMod()).append('\n');
        }
        sb.append(" Mtu             : ").append(t.mtuBytes()).append("[B]\n");
        sb.append(" Link type       : ").append(t.linkType()).append('\n');
        if (t.gidIndex() != -1) {
            sb.append(" GID index       : ").append(t.gidIndex()).append('\n');
        }
        if (t.verb() != Verb.READ && t.verb() != Verb.ATOMIC) {
            sb.append(" Max inline data : ").append(t.inlineSize()).append("[B]\n");
        } else {
            sb.append(" Outstand reads  : ").append(t.outReads()).append('\n');
        }
        sb.append(" rdma_cm QPs\t : ").append(t.rdmaCm() ? "ON" : "OFF").append('\n');
        sb.append(" Data ex. method : ").append(t.rdmaCm() || t.commRdmaCm() ? "rdma_cm" : "Ethernet");
        if (t.rdmaCm() && !t.client()) {
            sb.append('\n').append(LINE).append('\n');
            sb.append(" Waiting for client rdma_cm QP to connect\n");
            sb.append(" Please run the same command with the IB/RoCE interface IP");
        }
        sb.append('\n');
        sb.append(LINE).append('\n');
        return sb.toString();
    }

    /**
     * One side's address lines ({@code ctx_print_pingpong_data}): BASIC_ADDR_FMT, then for
     * read " OUT" + RKey/VAddr, for write RKey/VAddr, for send and atomic nothing more (perftest's
     * switch on the verb has no case for atomic); then the GID line when a GID is used.
     */
    public static String address(boolean local, PeerInfo p, Verb verb) {
        return address(local, p, verb, 0);
    }

    /**
     * {@link #address(boolean, PeerInfo, Verb)} with --dlid: a remote line shows {@code dlid}
     * (when not 0) as the LID instead of the one the peer announced, as perftest's
     * ctx_print_pingpong_data does, since the QP is connected to it; a local line never does.
     */
    public static String address(boolean local, PeerInfo p, Verb verb, int dlid) {
        int lid = !local && dlid != 0 ? dlid : p.lid();
        StringBuilder sb = new StringBuilder();
        sb.append(' ').append(local ? "local" : "remote").append(" address: LID ").append(altHex(lid, 4))
          .append(" QPN ").append(altHex(p.qpn(), 6)).append(" PSN ").append(altHex(p.psn(), 6));
        if (verb == Verb.READ) {
            sb.append(" OUT ").append(altHex(p.outReads(), 4));
        }
        if (verb == Verb.READ || verb == Verb.WRITE) {
            sb.append(" RKey ").append(altHex(Integer.toUnsignedLong(p.rkey()), 8))
              .append(" VAddr ").append(altHex(p.vaddr(), 16));
        }
        sb.append('\n');
        if (p.hasGid()) {
            sb.append(" GID: ");
            byte[] gid = p.gid();
            for (int i = 0; i < gid.length; i++) {
                if (i > 0) {
                    sb.append(':');
                }
                int v = gid[i] & 0xff;
                sb.append(v < 10 ? "0" + v : Integer.toString(v));   // %02d
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The dash line and column header before the first latency row. */
    public static String latencyTableHeader(boolean duration) {
        return LINE + "\n" + (duration ? LAT_DURATION_HEADER : LAT_HEADER) + "\n";
    }

    /** One latency row, REPORT_FMT_LAT + newline. */
    public static String latencyRow(LatencyReport r) {
        return " " + left(Long.toUnsignedString(r.size()), 7) + " " + r.iters() + "          "
                + fixed(r.tMin(), 7, 2) + "        " + fixed(r.tMax(), 7, 2) + "      " + fixed(r.tTypical(), 7, 2)
                + "  \t       " + fixed(r.tAvg(), 7, 2) + "     \t" + fixed(r.tStdev(), 7, 2) + "\t\t"
                + fixed(r.p99(), 7, 2) + " \t\t" + fixed(r.p999(), 7, 2) + "\n";
    }

    /** One duration latency row, REPORT_FMT_LAT_DUR + newline. */
    public static String latencyDurationRow(long size, long iters, double tAvgUs, double tps) {
        return " " + left(Long.toUnsignedString(size), 7) + "       " + iters + "            " + fixed(tAvgUs, 7, 2)
                + "        " + fixed(tps, 7, 2) + "\n";
    }

    /** The dash line and column header before the first BW row. */
    public static String bandwidthTableHeader(boolean gbits) {
        return LINE + "\n" + (gbits ? BW_HEADER_GBITS : BW_HEADER) + "\n";
    }

    /**
     * One BW row: REPORT_FMT, or REPORT_FMT_EXT (6 decimals) when reporting Gb/s and the average
     * is below 0.1 ({@code inc_accuracy}).
     */
    public static String bandwidthRow(BwReportData r, boolean gbits) {
        String size = left(Long.toUnsignedString(r.size()), 7);
        if (gbits && r.bwAvg() < 0.1) {
            return " " + size + "    " + Long.toUnsignedString(r.iters()) + "           " + fixed(r.bwPeak(), 7, 6)
                    + "            " + fixed(r.bwAvg(), 7, 6) + "            " + fixed(r.msgRate(), 7, 6) + "\n";
        }
        return " " + size + "    " + left(Long.toUnsignedString(r.iters()), 10) + "       " + fixed(r.bwPeak(), 7, 2)
                + "            " + fixed(r.bwAvg(), 7, 2) + "\t\t   " + fixed(r.msgRate(), 7, 6) + "\n";
    }

    /** {@code --output bandwidth|message_rate|latency}: one number, C's "%lf\n". */
    public static String single(double value) {
        return fixed(value, 0, 6) + "\n";
    }

    /** C's {@code %#0<width>x}: "0x" + digits zero-padded to width in total; 0 prints as zeros only. */
    public static String altHex(long value, int width) {
        if (value == 0) {
            return "0".repeat(width);
        }
        String digits = Long.toHexString(value);
        int pad = width - 2 - digits.length();
        return "0x" + (pad > 0 ? "0".repeat(pad) : "") + digits;
    }

    /** C's {@code %-<width>.<precision>f} (left-aligned; width 0 = none) with C's inf/nan spelling. */
    public static String fixed(double v, int width, int precision) {
        String s;
        if (Double.isNaN(v)) {
            s = (Double.doubleToRawLongBits(v) < 0) ? "-nan" : "nan";
        } else if (Double.isInfinite(v)) {
            s = v > 0 ? "inf" : "-inf";
        } else {
            s = String.format(Locale.ROOT, "%." + precision + "f", v);
        }
        return left(s, width);
    }

    private static String left(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
