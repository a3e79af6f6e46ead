// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One queue pair's connection data as perftest exchanges it (its {@code struct pingpong_dest}):
 * the "key message" of the out-of-band channel.
 *
 * <p>Wire format (perftest 6.06, src/perftest_communication.h {@code KEY_PRINT_FMT} and
 * {@code KEY_PRINT_FMT_GID}): ASCII, zero-padded lowercase hex fields separated by ':' and a
 * terminating NUL, in a fixed-size buffer that is written in one piece:
 * <pre>
 * without GID (59 bytes): LID(4):OUT_READS(4):QPN(6):PSN(6):RKEY(8):VADDR(16):SRQN(8) NUL
 * with GID   (108 bytes): LID(4):OUT_READS(4):QPN(6):PSN(6):RKEY(8):VADDR(16):
 *                         G0(2):G1(2):...:G15(2):SRQN(8): NUL
 * </pre>
 * Note the asymmetry: the form without GID has no ':' after SRQN, the GID form has one. Which
 * form is read is decided by the <em>reader's own</em> GID setting (perftest copies its local
 * gid_index into the remote record before reading), so both sides must agree on using a GID;
 * on RoCE they always do.
 *
 * @param lid      port LID (16 bits; 0 on RoCE)
 * @param outReads max outstanding RDMA reads/atomics the sender accepts as responder
 * @param qpn      queue pair number (24 bits)
 * @param psn      initial packet sequence number (24 bits)
 * @param rkey     remote key of the sender's buffer
 * @param vaddr    virtual address of the sender's buffer (unsigned 64 bits)
 * @param gid      the 16 raw GID bytes, or null when no GID is exchanged
 * @param srqn     SRQ number (XRC/DC only; 0 otherwise)
 */
public record PeerInfo(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn) {

    /** Size of the key message without a GID, including the NUL. */
    public static final int SIZE = 59;
    /** Size of the key message with a GID, including the NUL. */
    public static final int SIZE_WITH_GID = 108;

    private static final HexFormat HEX = HexFormat.of();

    public PeerInfo {
        check("LID", lid, 0xffff);
        check("OUT_READS", outReads, 0xffff);
        check("QPN", qpn, 0xffffff);
        check("PSN", psn, 0xffffff);
        if (gid != null) {
            if (gid.length != 16) {
                throw new IllegalArgumentException("GID must be 16 bytes, got " + gid.length);
            }
            gid = gid.clone();
        }
    }

    private static void check(String field, int value, int max) {
        if (value < 0 || value > max) {
            // perftest's %04x/%06x are minimum widths: a larger value would overflow the buffer.
            throw new IllegalArgumentException(field + " " + value + " does not fit the key message (max 0x"
                    + Integer.toHexString(max) + ")");
        }
    }

    @Override
    public byte[] gid() {
        return gid == null ? null : gid.clone();
    }

    /** True when this record carries a GID (and so uses the 108-byte form). */
    public boolean hasGid() {
        return gid != null;
    }

    /** The wire size for messages with or without GID. */
    public static int wireSize(boolean withGid) {
        return withGid ? SIZE_WITH_GID : SIZE;
    }

    /** The fixed-size key message, NUL-terminated. */
    public byte[] format() {
        StringBuilder sb = new StringBuilder(SIZE_WITH_GID);
        sb.append(hex(lid, 4)).append(':')
          .append(hex(outReads, 4)).append(':')
          .append(hex(qpn, 6)).append(':')
          .append(hex(psn, 6)).append(':')
          .append(hex(Integer.toUnsignedLong(rkey), 8)).append(':')
          .append(String.format("%016x", vaddr)).append(':');
        if (gid != null) {
            for (byte b : gid) {
                sb.append(HEX.toHexDigits(b)).append(':');
            }
            sb.append(hex(Integer.toUnsignedLong(srqn), 8)).append(':');
        } else {
            sb.append(hex(Integer.toUnsignedLong(srqn), 8));
        }
        byte[] text = sb.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] msg = new byte[wireSize(gid != null)];
        System.arraycopy(text, 0, msg, 0, text.length);   // the rest stays NUL
        return msg;
    }

    private static String hex(long value, int width) {
        String s = Long.toHexString(value);
        return s.length() >= width ? s : "0".repeat(width - s.length()) + s;
    }

    /**
     * Parses a key message of exactly {@link #wireSize(boolean)} bytes.
     *
     * <p>Stricter than perftest (which uses strtol between colons and accepts garbage as 0): every
     * field must have perftest's width and be lowercase or uppercase hex; the text must end with
     * NUL. Anything else is rejected with a message naming the field.
     *
     * @throws PerftestProtocolException on any malformed or truncated input (never anything else)
     */
    public static PeerInfo parse(byte[] msg, boolean withGid) throws PerftestProtocolException {
        if (msg == null) {
            throw new PerftestProtocolException("key message: missing");
        }
        int expected = wireSize(withGid);
        if (msg.length != expected) {
            throw new PerftestProtocolException("key message: expected " + expected + " bytes ("
                    + (withGid ? "with" : "without") + " GID), got " + msg.length
                    + (msg.length == SIZE || msg.length == SIZE_WITH_GID
                        ? " - do both sides use a GID (-x)?" : ""));
        }
        Cursor c = new Cursor(msg);
        int lid = (int) c.field("LID", 4, true);
        int outReads = (int) c.field("OUT_READS", 4, true);
        int qpn = (int) c.field("QPN", 6, true);
        int psn = (int) c.field("PSN", 6, true);
        int rkey = (int) c.field("RKEY", 8, true);
        long vaddr = c.field("VADDR", 16, true);
        byte[] gid = null;
        int srqn;
        if (withGid) {
            gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) c.field("GID[" + i + "]", 2, true);
            }
            srqn = (int) c.field("SRQN", 8, true);
        } else {
            srqn = (int) c.field("SRQN", 8, false);
        }
        c.terminator();
        return new PeerInfo(lid, outReads, qpn, psn, rkey, vaddr, gid, srqn);
    }

    private static final class Cursor {
        private final byte[] msg;
        private int pos;

        Cursor(byte[] msg) {
            this.msg = msg;
        }

        long field(String name, int width, boolean colon) throws PerftestProtocolException {
            long value = 0;
            for (int i = 0; i < width; i++) {
                int at = pos + i;
                if (at >= msg.length || msg[at] == 0) {
                    throw new PerftestProtocolException("key message: field " + name + " truncated at byte " + at
                            + " (expected " + width + " hex digits)");
                }
                int d = Character.digit((char) (msg[at] & 0xff), 16);
                if (d < 0 || msg[at] < 0) {
                    throw new PerftestProtocolException("key message: field " + name + " has a non-hex byte 0x"
                            + HEX.toHexDigits(msg[at]) + " at byte " + at);
                }
                value = (value << 4) | d;
            }
            pos += width;
            if (colon) {
                if (pos >= msg.length || msg[pos] != ':') {
                    throw new PerftestProtocolException("key message: expected ':' after field " + name
                            + " at byte " + pos);
                }
                pos++;
            }
            return value;
        }

        void terminator() throws PerftestProtocolException {
            if (pos >= msg.length || msg[pos] != 0) {
                throw new PerftestProtocolException("key message: expected NUL after the last field at byte " + pos);
            }
        }
    }

    /** An all-zero record (what perftest's -R barriers send before its records are filled). */
    public static PeerInfo zero(boolean withGid) {
        return new PeerInfo(0, 0, 0, 0, 0, 0, withGid ? new byte[16] : null, 0);
    }

    /**
     * Size of the -R form: perftest sends its {@code struct pingpong_dest} itself over the rdma_cm
     * control QP (x86-64 layout: five 32-bit ints, 4 bytes of padding, the 64-bit vaddr at 24,
     * the GID at 32, srqn at 48, gid_index at 52).
     */
    public static final int RDMA_CM_SIZE = 56;

    /**
     * The -R form ({@code rdma_write_keys}): the integers and vaddr big-endian, the GID raw (all
     * zero when this record has none). perftest leaves the padding as stack garbage; we send
     * zeros.
     *
     * @param gidIndex the sender's GID index (perftest fills the field; the reader ignores it)
     */
    public byte[] formatRdmaCm(int gidIndex) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(RDMA_CM_SIZE);   // big-endian
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr);
        b.put(gid == null ? new byte[16] : gid);
        b.putInt(srqn).putInt(gidIndex);
        return b.array();
    }

    /**
     * Parses the -R form like perftest's {@code rdma_read_keys}: it takes LID, OUT_READS, QPN,
     * PSN, RKEY, VADDR and the GID, and ignores srqn and gid_index (so they are not returned).
     *
     * @param withGid whether this side uses a GID (the record is the same size either way)
     * @throws PerftestProtocolException for a wrong size or a field outside its range
     */
    public static PeerInfo parseRdmaCm(byte[] msg, boolean withGid) throws PerftestProtocolException {
        if (msg.length != RDMA_CM_SIZE) {
            throw new PerftestProtocolException("rdma_cm key record: expected " + RDMA_CM_SIZE + " bytes, got "
                    + msg.length);
        }
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(msg);
        int lid = b.getInt();
        int outReads = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rkey = b.getInt();
        b.getInt();   // padding
        long vaddr = b.getLong();
        byte[] gid = new byte[16];
        b.get(gid);
        try {
            return new PeerInfo(lid, outReads, qpn, psn, rkey, vaddr, withGid ? gid : null, 0);
        } catch (IllegalArgumentException e) {
            throw new PerftestProtocolException("rdma_cm key record: " + e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerInfo p && lid == p.lid && outReads == p.outReads && qpn == p.qpn && psn == p.psn
                && rkey == p.rkey && vaddr == p.vaddr && Arrays.equals(gid, p.gid) && srqn == p.srqn;
    }

    @Override
    public int hashCode() {
        return ((((qpn * 31 + psn) * 31 + rkey) * 31 + Long.hashCode(vaddr)) * 31 + Arrays.hashCode(gid)) * 31 + lid;
    }

    @Override
    public String toString() {
        return "PeerInfo[lid=0x" + Integer.toHexString(lid) + ", outReads=" + outReads + ", qpn=0x" + Integer.toHexString(qpn)
                + ", psn=0x" + Integer.toHexString(psn) + ", rkey=0x" + Integer.toHexString(rkey) + ", vaddr=0x"
                + Long.toHexString(vaddr) + ", gid=" + (gid == null ? "none" : HEX.formatHex(gid)) + ", srqn=0x"
                + Integer.toHexString(srqn) + "]";
    }
}
