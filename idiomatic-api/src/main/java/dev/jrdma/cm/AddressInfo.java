// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.Reaches;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_addrinfo;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.CoreAccess;
import dev.jrdma.internal.NativeAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * One result of {@code rdma_getaddrinfo}: the addresses an endpoint
 * ({@link CmEventChannel#createEndpoint}) binds to or connects to, from {@link #resolve}. A
 * copy: librdmacm's list is freed ({@code rdma_freeaddrinfo}) before {@code resolve} returns.
 *
 * @param source        the local address (null: rdma_cm picks one)
 * @param destination   the peer's address (null for a passive endpoint)
 * @param passive       whether it describes a listening endpoint ({@code RAI_PASSIVE})
 * @param queuePairType RC (port space TCP) or UD (port space UDP)
 */
public record AddressInfo(InetSocketAddress source, InetSocketAddress destination, boolean passive,
                          QueuePairType queuePairType) {
    private static final CoreAccess CORE = CoreAccess.get();

    /** Checks that a passive endpoint has a source and an active one a destination. */
    public AddressInfo {
        if (passive ? source == null : destination == null) {
            throw new IllegalArgumentException((passive ? "a passive endpoint needs a source" : "an active endpoint"
                    + " needs a destination") + " address");
        }
        if (queuePairType != QueuePairType.RC && queuePairType != QueuePairType.UD) {
            throw new IllegalArgumentException("rdma_cm endpoints are RC or UD, not " + queuePairType);
        }
    }

    /**
     * Resolves {@code node} and {@code service} for rdma_cm ({@code rdma_getaddrinfo}, then
     * {@code rdma_freeaddrinfo}).
     *
     * @param node    a host name or numeric address; null for the wildcard address of a passive endpoint
     * @param service a port number or service name
     * @param passive true for a listening endpoint ({@code RAI_PASSIVE}: the result is a source address)
     * @param type    RC or UD
     * @return the results, in librdmacm's order (at least one)
     * @throws RdmaException when the name does not resolve to an address rdma_cm can use
     */
    @Reaches({"rdma_getaddrinfo", "rdma_freeaddrinfo"})
    public static List<AddressInfo> resolve(String node, String service, boolean passive, QueuePairType type) {
        NativeAccess.require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment hints = arena.allocate(rdma_addrinfo.layout());
            rdma_addrinfo.ai_flags(hints, passive ? rdma_h.RAI_PASSIVE() : 0);
            rdma_addrinfo.ai_port_space(hints, portSpace(type));
            rdma_addrinfo.ai_qp_type(hints, CORE.value(type));
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment errno = Errno.allocate(arena);
            int rc = RdmaCmVerbs.rdma_getaddrinfo(errno, node == null ? MemorySegment.NULL : arena.allocateFrom(node),
                    service == null ? MemorySegment.NULL : arena.allocateFrom(service), hints, out);
            String what = "node " + node + ", service " + service + (passive ? ", passive" : "") + ", " + type;
            if (rc != 0) {
                // -1 with errno from librdmacm, or getaddrinfo's own EAI_* code (negative) without errno.
                throw rc == -1 ? CORE.exception(Verb.RDMA_GETADDRINFO, what, Errno.get(errno))
                        : CORE.exception(Verb.RDMA_GETADDRINFO, what, 0, "getaddrinfo error " + rc);
            }
            MemorySegment first = out.get(ADDRESS, 0);
            try {
                List<AddressInfo> results = new ArrayList<>();
                for (MemorySegment ai = first; ai.address() != 0; ai = rdma_addrinfo.ai_next(ai)) {
                    ai = ai.reinterpret(rdma_addrinfo.layout().byteSize());
                    InetSocketAddress src = address(rdma_addrinfo.ai_src_addr(ai));
                    InetSocketAddress dst = address(rdma_addrinfo.ai_dst_addr(ai));
                    boolean isPassive = (rdma_addrinfo.ai_flags(ai) & rdma_h.RAI_PASSIVE()) != 0;
                    QueuePairType qpType = rdma_addrinfo.ai_qp_type(ai) == rdma_h.IBV_QPT_UD() ? QueuePairType.UD
                            : QueuePairType.RC;
                    if (isPassive ? src != null : dst != null) {
                        results.add(new AddressInfo(src, dst, isPassive, qpType));
                    }
                }
                if (results.isEmpty()) {
                    throw CORE.exception(Verb.RDMA_GETADDRINFO, what, 0, "no IP address among the results");
                }
                return List.copyOf(results);
            } finally {
                rdma_h.rdma_freeaddrinfo(first);
            }
        }
    }

    private static InetSocketAddress address(MemorySegment sockaddr) {
        return sockaddr.address() == 0 ? null : SocketAddresses.decode(sockaddr);
    }

    static int portSpace(QueuePairType type) {
        return type == QueuePairType.UD ? rdma_h.RDMA_PS_UDP() : rdma_h.RDMA_PS_TCP();
    }

    /** This result as a {@code struct rdma_addrinfo} in {@code arena}, for rdma_create_ep. */
    MemorySegment toNative(Arena arena) {
        MemorySegment ai = arena.allocate(rdma_addrinfo.layout());
        rdma_addrinfo.ai_flags(ai, passive ? rdma_h.RAI_PASSIVE() : 0);
        rdma_addrinfo.ai_port_space(ai, portSpace(queuePairType));
        rdma_addrinfo.ai_qp_type(ai, CORE.value(queuePairType));
        if (source != null) {
            MemorySegment src = SocketAddresses.encode(arena, source);
            rdma_addrinfo.ai_src_addr(ai, src);
            rdma_addrinfo.ai_src_len(ai, SocketAddresses.length(source));
            rdma_addrinfo.ai_family(ai, src.get(java.lang.foreign.ValueLayout.JAVA_SHORT, 0));
        }
        if (destination != null) {
            MemorySegment dst = SocketAddresses.encode(arena, destination);
            rdma_addrinfo.ai_dst_addr(ai, dst);
            rdma_addrinfo.ai_dst_len(ai, SocketAddresses.length(destination));
            rdma_addrinfo.ai_family(ai, dst.get(java.lang.foreign.ValueLayout.JAVA_SHORT, 0));
        }
        return ai;
    }
}
