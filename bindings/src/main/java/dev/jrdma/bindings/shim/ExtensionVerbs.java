// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.shim.NativeMemory.MEMORY;
import static dev.jrdma.bindings.shim.VerbsContextOps.create;
import static dev.jrdma.bindings.shim.VerbsContextOps.destroy;
import static dev.jrdma.bindings.shim.VerbsContextOps.modify;
import static dev.jrdma.bindings.shim.VerbsContextOps.objectOp;
import static dev.jrdma.bindings.shim.VerbsContextOps.op;
import static dev.jrdma.bindings.shim.VerbsContextOps.refuse;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_dm;
import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_srq;
import dev.jrdma.bindings.generated.ibv_srq_init_attr_ex;
import dev.jrdma.bindings.generated.ibv_td;
import dev.jrdma.bindings.generated.ibv_xrcd;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.generated.verbs_context;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The {@code static inline} verbs of {@code infiniband/verbs.h} (rdma-core 44) that dispatch
 * through an extension op of {@code struct verbs_context} and that many providers leave to
 * libibverbs: XRC, extended SRQs and tag matching, device memory, thread and parent domains,
 * the null MR, {@code ibv_advise_mr} and the QP rate limit. Flow steering, counters and work
 * queues are in {@link SteeringVerbs}.
 *
 * <p>Each method does what its C inline does: {@code verbs_get_ctx_op} (the context's
 * {@code abi_compat} marker, its {@code sz} reaching back to the op, a non-NULL pointer; see
 * {@link InlineVerbs}), then the op, else NULL with errno EOPNOTSUPP or the value EOPNOTSUPP.
 * rdma-core 44 fills every op a provider leaves out with a libibverbs stub that answers
 * EOPNOTSUPP, so the provider's refusal normally arrives through the op itself; the NULL check
 * is what keeps an older library (or a hand-made context) from being called through address 0.
 * Functions with the errno convention take the capture state first (see {@link Errno}).
 */
public final class ExtensionVerbs {
    private ExtensionVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();

    /** A function pointer read from a field of an object (not an op of the context), 0 when NULL. */
    static long field(MemorySegment obj, long offset, String what) {
        if (obj.address() == 0) {
            throw new NullPointerException(what + " is NULL");
        }
        return MEMORY.get(JAVA_LONG, obj.address() + offset);
    }

    static MethodHandle capturing(java.lang.foreign.FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor, Errno.CAPTURE);
    }

    static MethodHandle plain(java.lang.foreign.FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    // ---- XRC and extended SRQs ---------------------------------------------------------------
    private static final class Xrc {
        static final long OPEN_XRCD = verbs_context.open_xrcd$offset();
        static final long CLOSE_XRCD = verbs_context.close_xrcd$offset();
        static final long OPEN_QP = verbs_context.open_qp$offset();
        static final long CREATE_SRQ_EX = verbs_context.create_srq_ex$offset();
        static final long GET_SRQ_NUM = verbs_context.get_srq_num$offset();
        static final long POST_SRQ_OPS = verbs_context.post_srq_ops$offset();
        static final MethodHandle POST_SRQ_OPS_MH = plain(verbs_context.post_srq_ops.descriptor());
        static final int SRQ_MASK_PD = rdma_h.IBV_SRQ_INIT_ATTR_PD();
        static final int SRQ_MASK_TYPE = rdma_h.IBV_SRQ_INIT_ATTR_TYPE();
        static final int SRQT_BASIC = rdma_h.IBV_SRQT_BASIC();
    }

    /** {@code ibv_open_xrcd}: the {@code open_xrcd} op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_open_xrcd(MemorySegment errno, MemorySegment context, MemorySegment initAttr) {
        return create(op(context, Xrc.OPEN_XRCD), errno, context, initAttr);
    }

    /**
     * {@code ibv_close_xrcd}: the {@code close_xrcd} op, 0 or an errno value. The C inline calls
     * the op without checking it (a domain exists only where open_xrcd worked); this one answers
     * EOPNOTSUPP rather than call address 0.
     */
    public static int ibv_close_xrcd(MemorySegment xrcd) {
        return destroy(objectOp(xrcd, ibv_xrcd.context$offset(), Xrc.CLOSE_XRCD, "xrcd"), xrcd);
    }

    /** {@code ibv_open_qp}: the {@code open_qp} op (a shareable XRC target QP); NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_open_qp(MemorySegment errno, MemorySegment context, MemorySegment openAttr) {
        return create(op(context, Xrc.OPEN_QP), errno, context, openAttr);
    }

    /**
     * {@code ibv_create_srq_ex}: a basic SRQ asked for with only {@code IBV_SRQ_INIT_ATTR_PD}
     * (and {@code _TYPE} = BASIC) is plain {@code ibv_create_srq}, as in C
     * (ibv_srq_init_attr is a prefix of the _ex struct); anything else goes to the
     * {@code create_srq_ex} op, NULL with errno EOPNOTSUPP without it.
     */
    public static MemorySegment ibv_create_srq_ex(MemorySegment errno, MemorySegment context, MemorySegment initAttrEx) {
        MemorySegment attr = initAttrEx.asSlice(0, ibv_srq_init_attr_ex.layout().byteSize());
        int mask = ibv_srq_init_attr_ex.comp_mask(attr);
        if ((mask & ~(Xrc.SRQ_MASK_PD | Xrc.SRQ_MASK_TYPE)) == 0 && (mask & Xrc.SRQ_MASK_PD) != 0
                && ((mask & Xrc.SRQ_MASK_TYPE) == 0 || ibv_srq_init_attr_ex.srq_type(attr) == Xrc.SRQT_BASIC)) {
            return ErrnoVerbs.ibv_create_srq(errno, ibv_srq_init_attr_ex.pd(attr), attr);
        }
        return create(op(context, Xrc.CREATE_SRQ_EX), errno, context, attr);
    }

    /** {@code ibv_get_srq_num}: writes the SRQ number (XRC) to {@code srqNum} (a uint32_t); 0 or an errno value. */
    public static int ibv_get_srq_num(MemorySegment srq, MemorySegment srqNum) {
        return modify(objectOp(srq, ibv_srq.context$offset(), Xrc.GET_SRQ_NUM, "srq"), srq, srqNum.asSlice(0, JAVA_INT));
    }

    /**
     * {@code ibv_post_srq_ops} (tag matching): 0 or an errno value; without the op, EOPNOTSUPP
     * with {@code *badOp = op}, as the C inline does ({@code badOp} holds one pointer).
     */
    public static int ibv_post_srq_ops(MemorySegment srq, MemorySegment op, MemorySegment badOp) {
        long fn = objectOp(srq, ibv_srq.context$offset(), Xrc.POST_SRQ_OPS, "srq");
        if (fn == 0) {
            badOp.set(java.lang.foreign.ValueLayout.ADDRESS, 0, op);
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) Xrc.POST_SRQ_OPS_MH.invokeExact(MemorySegment.ofAddress(fn), srq, op, badOp);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    // ---- device memory -----------------------------------------------------------------------
    private static final class DeviceMemory {
        static final long ALLOC_DM = verbs_context.alloc_dm$offset();
        static final long FREE_DM = verbs_context.free_dm$offset();
        static final long REG_DM_MR = verbs_context.reg_dm_mr$offset();
        static final MethodHandle REG_DM_MR_MH = capturing(verbs_context.reg_dm_mr.descriptor());
        static final MethodHandle MEMCPY_TO_MH = plain(ibv_dm.memcpy_to_dm.descriptor());
        static final MethodHandle MEMCPY_FROM_MH = plain(ibv_dm.memcpy_from_dm.descriptor());
    }

    /** {@code ibv_alloc_dm}: the {@code alloc_dm} op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_alloc_dm(MemorySegment errno, MemorySegment context, MemorySegment attr) {
        return create(op(context, DeviceMemory.ALLOC_DM), errno, context, attr);
    }

    /** {@code ibv_free_dm}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_free_dm(MemorySegment dm) {
        return destroy(objectOp(dm, ibv_dm.context$offset(), DeviceMemory.FREE_DM, "dm"), dm);
    }

    /**
     * {@code ibv_memcpy_to_dm}: {@code dm->memcpy_to_dm(dm, offset, host, length)}, a function the
     * provider stores in the DM itself; 0 or an errno value (EOPNOTSUPP if it left it NULL, which
     * C would call).
     */
    public static int ibv_memcpy_to_dm(MemorySegment dm, long dmOffset, MemorySegment host, long length) {
        long fn = field(dm, ibv_dm.memcpy_to_dm$offset(), "dm");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) DeviceMemory.MEMCPY_TO_MH.invokeExact(MemorySegment.ofAddress(fn), dm, dmOffset, host, length);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_memcpy_from_dm}: {@code dm->memcpy_from_dm(host, dm, offset, length)}; as {@link #ibv_memcpy_to_dm}. */
    public static int ibv_memcpy_from_dm(MemorySegment host, MemorySegment dm, long dmOffset, long length) {
        long fn = field(dm, ibv_dm.memcpy_from_dm$offset(), "dm");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) DeviceMemory.MEMCPY_FROM_MH.invokeExact(MemorySegment.ofAddress(fn), host, dm, dmOffset, length);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_reg_dm_mr}: the {@code reg_dm_mr} op of {@code pd}'s context; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_reg_dm_mr(MemorySegment errno, MemorySegment pd, MemorySegment dm, long dmOffset,
                                              long length, int access) {
        long fn = objectOp(pd, ibv_pd.context$offset(), DeviceMemory.REG_DM_MR, "pd");
        if (fn == 0) {
            return refuse(errno);
        }
        try {
            return (MemorySegment) DeviceMemory.REG_DM_MR_MH.invokeExact(MemorySegment.ofAddress(fn), errno, pd, dm,
                    dmOffset, length, access);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    // ---- thread and parent domains -------------------------------------------------------------
    private static final class Domains {
        static final long ALLOC_TD = verbs_context.alloc_td$offset();
        static final long DEALLOC_TD = verbs_context.dealloc_td$offset();
        static final long ALLOC_PARENT_DOMAIN = verbs_context.alloc_parent_domain$offset();
    }

    /** {@code ibv_alloc_td}: the {@code alloc_td} op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_alloc_td(MemorySegment errno, MemorySegment context, MemorySegment initAttr) {
        return create(op(context, Domains.ALLOC_TD), errno, context, initAttr);
    }

    /** {@code ibv_dealloc_td}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_dealloc_td(MemorySegment td) {
        return destroy(objectOp(td, ibv_td.context$offset(), Domains.DEALLOC_TD, "td"), td);
    }

    /** {@code ibv_alloc_parent_domain}: the {@code alloc_parent_domain} op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_alloc_parent_domain(MemorySegment errno, MemorySegment context, MemorySegment attr) {
        return create(op(context, Domains.ALLOC_PARENT_DOMAIN), errno, context, attr);
    }

    // ---- memory region ops and the QP rate limit ----------------------------------------------
    private static final class RegionOps {
        static final long ALLOC_NULL_MR = verbs_context.alloc_null_mr$offset();
        static final long ADVISE_MR = verbs_context.advise_mr$offset();
        static final long MODIFY_QP_RATE_LIMIT = verbs_context.modify_qp_rate_limit$offset();
        static final MethodHandle ALLOC_NULL_MR_MH = capturing(verbs_context.alloc_null_mr.descriptor());
        static final MethodHandle ADVISE_MR_MH = plain(verbs_context.advise_mr.descriptor());
    }

    /** {@code ibv_alloc_null_mr}: the {@code alloc_null_mr} op; NULL with errno EOPNOTSUPP without it. */
    public static MemorySegment ibv_alloc_null_mr(MemorySegment errno, MemorySegment pd) {
        long fn = objectOp(pd, ibv_pd.context$offset(), RegionOps.ALLOC_NULL_MR, "pd");
        if (fn == 0) {
            return refuse(errno);
        }
        try {
            return (MemorySegment) RegionOps.ALLOC_NULL_MR_MH.invokeExact(MemorySegment.ofAddress(fn), errno, pd);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_advise_mr}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_advise_mr(MemorySegment pd, int advice, int flags, MemorySegment sgList, int numSge) {
        long fn = objectOp(pd, ibv_pd.context$offset(), RegionOps.ADVISE_MR, "pd");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) RegionOps.ADVISE_MR_MH.invokeExact(MemorySegment.ofAddress(fn), pd, advice, flags, sgList, numSge);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_modify_qp_rate_limit}: 0 or an errno value (EOPNOTSUPP without the op). */
    public static int ibv_modify_qp_rate_limit(MemorySegment qp, MemorySegment attr) {
        return modify(objectOp(qp, ibv_qp.context$offset(), RegionOps.MODIFY_QP_RATE_LIMIT, "qp"), qp, attr);
    }
}
