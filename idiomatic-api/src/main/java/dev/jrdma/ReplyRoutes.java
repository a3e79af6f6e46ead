// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_ah;
import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SurfaceVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Routes back to the sender of a UD datagram, from its completion and the 40 bytes in front of
 * the payload (the GRH; on RoCE v2 over IPv4, the IPv4 header in its last 20 bytes):
 * {@code ibv_init_ah_from_wc} and {@code ibv_create_ah_from_wc}.
 */
final class ReplyRoutes {
    /** {@code sizeof(struct ibv_grh)}: the bytes every UD receive buffer starts with. */
    static final int GRH_BYTES = 40;

    private ReplyRoutes() {}

    static AddressVector addressVector(Context context, MemorySegment handle, int port, WorkCompletion wc,
            MemorySegment grh) {
        checkGrh(grh);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_ah_attr.layout());
            MemorySegment errno = Errno.allocate(arena);
            int rc = SurfaceVerbs.ibv_init_ah_from_wc(errno, handle, port, wc.segment(), grh, attr);
            if (rc != 0) {
                throw failure(Verb.IBV_INIT_AH_FROM_WC, context + " port " + port, Errno.get(errno), wc);
            }
            MemorySegment route = ibv_ah_attr.grh(attr);
            return new AddressVector(Byte.toUnsignedInt(ibv_ah_attr.port_num(attr)),
                    Short.toUnsignedInt(ibv_ah_attr.dlid(attr)), Byte.toUnsignedInt(ibv_ah_attr.sl(attr)),
                    ibv_ah_attr.is_global(attr) != 0, Gid.read(ibv_global_route.dgid(route)),
                    Byte.toUnsignedInt(ibv_global_route.sgid_index(route)),
                    Byte.toUnsignedInt(ibv_global_route.hop_limit(route)),
                    Byte.toUnsignedInt(ibv_global_route.traffic_class(route)), ibv_global_route.flow_label(route));
        }
    }

    static MemorySegment createAddressHandle(ProtectionDomain pd, int port, WorkCompletion wc, MemorySegment grh) {
        checkGrh(grh);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment ah = SurfaceVerbs.ibv_create_ah_from_wc(errno, pd.handle(), wc.segment(), grh, port);
            if (ah.address() == 0) {
                throw failure(Verb.IBV_CREATE_AH_FROM_WC, pd + ", port " + port, Errno.get(errno), wc);
            }
            return ah.reinterpret(ibv_ah.layout().byteSize());
        }
    }

    static void destroy(MemorySegment ah) {
        rdma_h.ibv_destroy_ah(ah);
    }

    private static void checkGrh(MemorySegment grh) {
        if (!grh.isNative()) {
            throw new IllegalArgumentException("the GRH must be in native memory (the receive buffer), not " + grh);
        }
        if (grh.byteSize() < GRH_BYTES) {
            throw new IllegalArgumentException("the GRH is " + GRH_BYTES + " bytes; got " + grh.byteSize());
        }
    }

    private static RdmaException failure(Verb verb, String object, int errno, WorkCompletion wc) {
        // A failed lookup of the destination GID returns -1 and leaves errno as it was.
        return RdmaException.of(verb, object, errno == 0 ? Errno.EINVAL : errno,
                "no route back to the sender of " + wc + " (a datagram sent to a multicast group, or to a GID"
                        + " no longer in the port's table, has none)");
    }
}
