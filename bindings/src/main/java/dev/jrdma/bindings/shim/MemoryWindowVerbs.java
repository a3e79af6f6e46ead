// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import dev.jrdma.bindings.generated.ibv_context_ops;
import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.ibv_mw;
import dev.jrdma.bindings.generated.ibv_mw_bind;
import dev.jrdma.bindings.generated.ibv_mw_bind_info;
import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The memory-window verbs of {@code infiniband/verbs.h} (rdma-core 44), {@code static inline}
 * there like the data path of {@link InlineVerbs} and found the same way: through the ops table
 * embedded in {@code struct ibv_context} ({@link InlineVerbs#contextOp}). They are a family of
 * their own because {@code ibv_bind_mw} repeats the C inline's argument checks before it
 * dispatches, and because none of them is on the data path: their handles are plain downcalls
 * ({@code dealloc_mw} has the signature of {@link VerbsContextOps#destroy}'s, and goes through it).
 *
 * <p>A raw layer, as {@link InlineVerbs}: return conventions follow C.
 */
public final class MemoryWindowVerbs {
    private MemoryWindowVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final int IBV_MW_TYPE_1 = rdma_h.IBV_MW_TYPE_1();

    // The ops of struct ibv_context_ops, reached from the PD or MW (both start with their context).
    private static final long PD_CONTEXT = ibv_pd.context$offset();
    private static final long MW_CONTEXT = ibv_mw.context$offset();
    private static final long OP_ALLOC_MW = InlineVerbs.OPS + ibv_context_ops.alloc_mw$offset();
    private static final long OP_DEALLOC_MW = InlineVerbs.OPS + ibv_context_ops.dealloc_mw$offset();
    private static final long OP_BIND_MW = InlineVerbs.OPS + ibv_context_ops.bind_mw$offset();
    private static final MethodHandle ALLOC_MW =
            LINKER.downcallHandle(ibv_context_ops.alloc_mw.descriptor(), Errno.CAPTURE);
    private static final MethodHandle BIND_MW = LINKER.downcallHandle(ibv_context_ops.bind_mw.descriptor());
    private static final long MW_SIZE = ibv_mw.layout().byteSize();
    private static final long MW_BIND_SIZE = ibv_mw_bind.layout().byteSize();
    private static final long MR_SIZE = ibv_mr.layout().byteSize();

    /**
     * {@code ibv_alloc_mw}: {@code pd->context->ops.alloc_mw(pd, type)}; NULL with errno
     * EOPNOTSUPP when the provider has no memory windows, as the C inline does.
     */
    public static MemorySegment ibv_alloc_mw(MemorySegment errno, MemorySegment pd, int type) {
        long fn = InlineVerbs.contextOp(pd, PD_CONTEXT, OP_ALLOC_MW, "pd");
        if (fn == 0) {
            return VerbsContextOps.refuse(errno);
        }
        try {
            return (MemorySegment) ALLOC_MW.invokeExact(MemorySegment.ofAddress(fn), errno, pd, type);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_dealloc_mw}: {@code mw->context->ops.dealloc_mw(mw)}; 0 or an errno value. */
    public static int ibv_dealloc_mw(MemorySegment mw) {
        return VerbsContextOps.destroy(InlineVerbs.contextOp(mw, MW_CONTEXT, OP_DEALLOC_MW, "mw"), mw);
    }

    /**
     * {@code ibv_bind_mw} (type 1 windows; type 2 windows are bound with an IBV_WR_BIND_MW work
     * request). Checks as the C inline does before dispatching: a type 2 window or an address
     * range without an MR is EINVAL, an MR of another PD is EPERM.
     *
     * <p>Unbinding with {@code bind_info.mr == NULL} is legal C, but the rxe provider of
     * rdma-core 44 dereferences the MR and crashes the process; the jrdma API unbinds with a
     * zero-length bind instead.
     */
    public static int ibv_bind_mw(MemorySegment qp, MemorySegment mw, MemorySegment mwBind) {
        if (mw.address() == 0 || mwBind.address() == 0) {
            throw new NullPointerException("mw or mw_bind is NULL");
        }
        MemorySegment window = mw.reinterpret(MW_SIZE);
        MemorySegment bind = mwBind.reinterpret(MW_BIND_SIZE);
        if (ibv_mw.type(window) != IBV_MW_TYPE_1) {
            return Errno.EINVAL;
        }
        MemorySegment info = ibv_mw_bind.bind_info(bind);
        MemorySegment mr = ibv_mw_bind_info.mr(info);
        if (mr.address() == 0 && (ibv_mw_bind_info.addr(info) != 0 || ibv_mw_bind_info.length(info) != 0)) {
            return Errno.EINVAL;
        }
        if (mr.address() != 0
                && ibv_mr.pd(mr.reinterpret(MR_SIZE)).address() != ibv_mw.pd(window).address()) {
            return Errno.EPERM;
        }
        long fn = InlineVerbs.contextOp(mw, MW_CONTEXT, OP_BIND_MW, "mw");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) BIND_MW.invokeExact(MemorySegment.ofAddress(fn), qp, mw, mwBind);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_inc_rkey}: the next rkey for re-binding a window, the low 8 bits (the key tag) incremented. */
    public static int ibv_inc_rkey(int rkey) {
        return (rkey & ~0xff) | ((rkey + 1) & 0xff);
    }
}
