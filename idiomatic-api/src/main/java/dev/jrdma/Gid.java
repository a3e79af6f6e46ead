// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * A 128-bit global identifier ({@code union ibv_gid}), held as two big-endian halves: the
 * first eight bytes on the wire are {@code high}. On RoCE a GID is an IPv6 address, and an
 * IPv4 address appears in its IPv4-mapped form {@code ::ffff:a.b.c.d}.
 *
 * @param high bytes 0-7, big-endian (the subnet prefix on InfiniBand)
 * @param low  bytes 8-15, big-endian (the interface id on InfiniBand)
 */
public record Gid(long high, long low) {
    /** Length of a GID in bytes. */
    public static final int BYTES = 16;
    /** The all-zero GID, which marks an unused table entry. */
    public static final Gid ZERO = new Gid(0, 0);

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * {@return the GID with these bytes}
     *
     * @param bytes 16 bytes in wire order
     */
    public static Gid of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a GID has 16 bytes, not " + bytes.length);
        }
        return read(MemorySegment.ofArray(bytes));
    }

    /**
     * {@return the GID of an IPv4 address in IPv4-mapped form, as RoCE uses it}
     *
     * @param address the IPv4 address
     */
    public static Gid ofIpv4(Inet4Address address) {
        byte[] a = address.getAddress();
        long low = 0xffffL << 32 | (a[0] & 0xffL) << 24 | (a[1] & 0xffL) << 16 | (a[2] & 0xffL) << 8 | (a[3] & 0xffL);
        return new Gid(0, low);
    }

    static Gid read(MemorySegment gid) {
        return new Gid(gid.get(BIG_ENDIAN_LONG, 0), gid.get(BIG_ENDIAN_LONG, 8));
    }

    void write(MemorySegment gid) {
        gid.set(BIG_ENDIAN_LONG, 0, high);
        gid.set(BIG_ENDIAN_LONG, 8, low);
    }

    /** {@return the 16 bytes in wire order} */
    public byte[] bytes() {
        byte[] bytes = new byte[BYTES];
        write(MemorySegment.ofArray(bytes));
        return bytes;
    }

    /** {@return whether this is an IPv4-mapped address ({@code ::ffff:a.b.c.d})} */
    public boolean isIpv4Mapped() {
        return high == 0 && (low >>> 32) == 0xffffL;
    }

    /** {@return the IPv4 address of an IPv4-mapped GID; empty for any other GID} */
    public Optional<Inet4Address> ipv4() {
        if (!isIpv4Mapped()) {
            return Optional.empty();
        }
        byte[] a = {(byte) (low >>> 24), (byte) (low >>> 16), (byte) (low >>> 8), (byte) low};
        try {
            return Optional.of((Inet4Address) InetAddress.getByAddress(a));
        } catch (UnknownHostException e) {
            throw new AssertionError("4 bytes are always an IPv4 address", e);
        }
    }

    /** The GID as eight colon-separated groups of four hex digits, the way {@code ibv_devinfo -v} prints it. */
    @Override
    public String toString() {
        return String.format("%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
                (high >>> 48) & 0xffff, (high >>> 32) & 0xffff, (high >>> 16) & 0xffff, high & 0xffff,
                (low >>> 48) & 0xffff, (low >>> 32) & 0xffff, (low >>> 16) & 0xffff, low & 0xffff);
    }
}
