// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in} / {@code sockaddr_in6} to and from {@link InetSocketAddress}, as
 * rdma_cm takes and reports addresses: the family in host order, port and address in network
 * order.
 */
final class SocketAddresses {
    private SocketAddresses() {}

    private static final short AF_INET = (short) rdma_h.AF_INET();
    private static final short AF_INET6 = (short) rdma_h.AF_INET6();
    /** {@code sizeof(struct sockaddr_in6)}, room enough for either family. */
    static final int MAX_BYTES = 28;

    /** A {@code struct sockaddr_in} (IPv4) or {@code sockaddr_in6} (IPv6) for {@code address}. */
    static MemorySegment encode(Arena arena, InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("an unresolved address has no IP address to give rdma_cm: " + address);
        }
        MemorySegment sa = arena.allocate(MAX_BYTES, 4);
        InetAddress ip = address.getAddress();
        sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) address.getPort());
        if (ip instanceof Inet4Address) {
            sa.set(JAVA_SHORT, 0, AF_INET);
            MemorySegment.copy(ip.getAddress(), 0, sa, JAVA_BYTE, 4, 4);
        } else {
            sa.set(JAVA_SHORT, 0, AF_INET6);
            MemorySegment.copy(ip.getAddress(), 0, sa, JAVA_BYTE, 8, 16);
            sa.set(JAVA_INT, 24, ((Inet6Address) ip).getScopeId());
        }
        return sa;
    }

    /**
     * Decodes a {@code struct sockaddr} rdma_cm filled in; null when its family is neither
     * AF_INET nor AF_INET6 (0 before the id is bound or resolved).
     */
    static InetSocketAddress decode(MemorySegment sockaddr) {
        MemorySegment sa = sockaddr.reinterpret(MAX_BYTES);
        short family = sa.get(JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(sa.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2));
        try {
            if (family == AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(sa.asSlice(4, 4).toArray(JAVA_BYTE)), port);
            }
            if (family == AF_INET6) {
                byte[] ip = sa.asSlice(8, 16).toArray(JAVA_BYTE);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, sa.get(JAVA_INT, 24)), port);
            }
        } catch (UnknownHostException e) {
            throw new AssertionError("a 4- or 16-byte address is always valid", e);
        }
        return null;
    }

    /** {@link #decode} with the port given apart (network order), as rdma_get_src_port/dst_port return it. */
    static InetSocketAddress withPort(MemorySegment sockaddr, short networkPort) {
        InetSocketAddress address = decode(sockaddr);
        return address == null ? null
                : new InetSocketAddress(address.getAddress(), Short.toUnsignedInt(Short.reverseBytes(networkPort)));
    }

    /** {@code sizeof} the struct {@link #encode} writes for {@code address}: 16 (IPv4) or 28 (IPv6). */
    static int length(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address ? 16 : MAX_BYTES;
    }
}
