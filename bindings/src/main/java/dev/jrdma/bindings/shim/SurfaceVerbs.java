// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.bindings.generated.ibv_values_ex;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.generated.verbs_context;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The verbs of the device-query, UD-reply and multicast corners of {@code infiniband/verbs.h}
 * (rdma-core 44) that the generated bindings cannot call as they are: a static inline
 * ({@code ibv_query_rt_values_ex}, {@code ibv_is_qpt_supported}), a create verb that reports
 * failure through errno ({@code ibv_create_ah_from_wc}), and an exported function that
 * jextract/includes.txt does not list ({@code ibv_resolve_eth_l2_from_gid}; jextract is not
 * available to regenerate, so it is bound here by hand). Conventions as in {@link InlineVerbs}.
 */
public final class SurfaceVerbs {
    private SurfaceVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();

    private static final class QueryRtValues {
        static final long OP = verbs_context.query_rt_values$offset();
        static final long SIZE = ibv_values_ex.layout().byteSize();
    }

    /**
     * {@code ibv_query_rt_values_ex}: {@code verbs_get_ctx_op(context, query_rt_values)}, and
     * EOPNOTSUPP when the library's verbs_context has no such op, as the C inline does. A
     * provider that does not implement it gets libibverbs' dummy op, which also answers
     * EOPNOTSUPP. 0 or an errno value.
     */
    public static int ibv_query_rt_values_ex(MemorySegment context, MemorySegment values) {
        long fn = VerbsContextOps.op(context, QueryRtValues.OP);
        return VerbsContextOps.modify(fn, context, values.asSlice(0, QueryRtValues.SIZE));
    }

    /** {@code ibv_is_qpt_supported}: whether bit {@code qpt} (an {@code enum ibv_qp_type} value) is set in {@code caps}. */
    public static boolean ibv_is_qpt_supported(int caps, int qpt) {
        return qpt >= 0 && qpt < Integer.SIZE && (caps & (1 << qpt)) != 0;
    }

    private static final class CreateAhFromWc {
        static final MethodHandle MH = Errno.capturing(rdma_h.ibv_create_ah_from_wc$address(),
                rdma_h.ibv_create_ah_from_wc$descriptor());
    }

    /** {@code ibv_create_ah_from_wc(pd, wc, grh, port_num)}: NULL and errno on failure. */
    public static MemorySegment ibv_create_ah_from_wc(MemorySegment errno, MemorySegment pd, MemorySegment wc,
            MemorySegment grh, int portNum) {
        try {
            return (MemorySegment) CreateAhFromWc.MH.invokeExact(errno, pd, wc, grh, (byte) portNum);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    private static final class InitAhFromWc {
        static final MethodHandle MH = Errno.capturing(rdma_h.ibv_init_ah_from_wc$address(),
                rdma_h.ibv_init_ah_from_wc$descriptor());
    }

    /**
     * {@code ibv_init_ah_from_wc(context, port_num, wc, grh, ah_attr)}: 0, or -1 and errno
     * (EINVAL for a datagram sent to a multicast group; -1 without a meaningful errno when the
     * GID the datagram was sent to is not in the port's table).
     */
    public static int ibv_init_ah_from_wc(MemorySegment errno, MemorySegment context, int portNum, MemorySegment wc,
            MemorySegment grh, MemorySegment ahAttr) {
        try {
            return (int) InitAhFromWc.MH.invokeExact(errno, context, (byte) portNum, wc, grh, ahAttr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    private static final class ResolveEthL2 {
        // Found in libibverbs itself (symbol version IBVERBS_1.1), as the generated code finds its functions.
        static final MethodHandle MH = LINKER.downcallHandle(
                SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global()).find("ibv_resolve_eth_l2_from_gid")
                        .orElseThrow(() -> new UnsatisfiedLinkError("libibverbs.so.1 has no ibv_resolve_eth_l2_from_gid")),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    }

    /**
     * {@code ibv_resolve_eth_l2_from_gid(context, attr, eth_mac, vid)}: the Ethernet MAC (6
     * bytes into {@code ethMac}) and VLAN id ({@code vid}, a uint16_t; 0xffff for none) of the
     * RoCE destination {@code attr->grh.dgid}, resolved through the kernel's neighbour table
     * from source GID {@code attr->grh.sgid_index}; blocks while the kernel resolves. 0, or a
     * negative errno value (-EHOSTUNREACH when the neighbour does not answer).
     */
    public static int ibv_resolve_eth_l2_from_gid(MemorySegment context, MemorySegment attr, MemorySegment ethMac,
            MemorySegment vid) {
        try {
            return (int) ResolveEthL2.MH.invokeExact(context, attr, ethMac, vid);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
