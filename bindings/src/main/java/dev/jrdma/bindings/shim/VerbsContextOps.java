// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.shim.NativeMemory.MEMORY;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.ibv_device_attr_ex;
import dev.jrdma.bindings.generated.ibv_port_attr;
import dev.jrdma.bindings.generated.ibv_qp_init_attr_ex;
import dev.jrdma.bindings.generated.ibv_query_device_ex_input;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.generated.verbs_context;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The extension ops of {@code struct verbs_context} ({@code verbs_get_ctx_op}): how every shim
 * finds an op a provider may or may not have and calls the ops of the three common signatures
 * ({@code create}, {@code destroy}, {@code modify}), and the {@code static inline} verbs of
 * {@code infiniband/verbs.h} that dispatch through one ({@code ibv_query_port},
 * {@code ibv_query_device_ex}, {@code ibv_create_cq_ex}, {@code ibv_create_qp_ex}). The
 * data-path ops of {@code struct ibv_context} are {@link InlineVerbs}.
 *
 * <p>A raw layer, as {@link InlineVerbs}: pointers are not validated beyond a NULL check.
 */
public final class VerbsContextOps {
    private VerbsContextOps() {}

    private static final Linker LINKER = Linker.nativeLinker();

    // struct ibv_context is the LAST member of struct verbs_context, with `sz` right before it,
    // and new ops are prepended in newer rdma-core releases. So an op is found at a fixed
    // distance before the ibv_context, and it exists only if the library's verbs_context is
    // large enough to reach back to it: sz >= sizeof(verbs_context) - offsetof(op). That stays
    // right when the running libibverbs is older or newer than the headers we were generated from.
    private static final long VCTX_CONTEXT = verbs_context.context$offset();
    private static final long VCTX_SZ = verbs_context.sz$offset();
    private static final long VCTX_SIZE = verbs_context.layout().byteSize();
    private static final long ABI_COMPAT = ibv_context.abi_compat$offset();
    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code (void *) UINTPTR_MAX}. */
    private static final long VERBS_ABI_IS_EXTENDED = -1L;

    /**
     * {@code verbs_get_ctx_op(ctx, op)->op}: the extension op's function pointer, or 0 if absent.
     * Package-private for the shims of verbs_context ops ({@link ExtensionVerbs}, {@link SteeringVerbs},
     * {@link SurfaceVerbs}, {@link ExtendedPollVerbs}'s ibv_modify_cq, and the inlines below).
     */
    static long op(MemorySegment context, long opOffset) {
        long ctx = context.address();
        if (ctx == 0) {
            throw new NullPointerException("context is NULL");
        }
        if (MEMORY.get(JAVA_LONG, ctx + ABI_COMPAT) != VERBS_ABI_IS_EXTENDED) {
            return 0;
        }
        long vctx = ctx - VCTX_CONTEXT;
        long sz = MEMORY.get(JAVA_LONG, vctx + VCTX_SZ);
        if (Long.compareUnsigned(sz, VCTX_SIZE - opOffset) < 0) {
            return 0;
        }
        return MEMORY.get(JAVA_LONG, vctx + opOffset);
    }

    /** The op at {@code opOffset} of the verbs_context whose ibv_context {@code obj} points to at {@code contextOffset}. */
    static long objectOp(MemorySegment obj, long contextOffset, long opOffset, String what) {
        if (obj.address() == 0) {
            throw new NullPointerException(what + " is NULL");
        }
        long context = MEMORY.get(JAVA_LONG, obj.address() + contextOffset);
        return op(MemorySegment.ofAddress(context), opOffset);
    }

    /** What a shim answers for a missing op that would have made an object: NULL with errno EOPNOTSUPP. */
    static MemorySegment refuse(MemorySegment errno) {
        Errno.set(errno, Errno.EOPNOTSUPP);
        return MemorySegment.NULL;
    }

    // Most ops have one of three C signatures. One downcall handle per signature serves all the
    // ops of it, the op's address being the handle's first argument; VerbsContextOpsTest pins
    // every such op's generated descriptor to its signature's.
    static final class Signatures {
        /** {@code struct ibv_x *(*)(struct ibv_context *, struct ibv_x_init_attr *)}: an object made from its attributes. */
        static final FunctionDescriptor CREATE = verbs_context.alloc_td.descriptor();
        /** {@code int (*)(struct ibv_x *)}: an object freed. */
        static final FunctionDescriptor DESTROY = verbs_context.dealloc_td.descriptor();
        /** {@code int (*)(struct ibv_x *, void *)}: an object modified or read through a second struct. */
        static final FunctionDescriptor MODIFY = verbs_context.modify_wq.descriptor();
        static final MethodHandle CREATE_MH = LINKER.downcallHandle(CREATE, Errno.CAPTURE);
        static final MethodHandle DESTROY_MH = LINKER.downcallHandle(DESTROY);
        static final MethodHandle MODIFY_MH = LINKER.downcallHandle(MODIFY);
    }

    /**
     * Makes an object with {@code fn}, a {@link Signatures#CREATE} op of {@code on} (the context,
     * or the object the new one belongs to) or 0 when it is absent: the object, or NULL and errno
     * (EOPNOTSUPP without the op).
     */
    static MemorySegment create(long fn, MemorySegment errno, MemorySegment on, MemorySegment attr) {
        if (fn == 0) {
            return refuse(errno);
        }
        try {
            return (MemorySegment) Signatures.CREATE_MH.invokeExact(MemorySegment.ofAddress(fn), errno, on, attr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * Frees {@code obj} with {@code fn}, a {@link Signatures#DESTROY} op or 0 when it is absent:
     * 0 or an errno value (EOPNOTSUPP without the op). The C inlines call such an op unchecked
     * (the object exists only where its constructor op did); this answers EOPNOTSUPP rather than
     * call address 0.
     */
    static int destroy(long fn, MemorySegment obj) {
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) Signatures.DESTROY_MH.invokeExact(MemorySegment.ofAddress(fn), obj);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * Calls {@code fn}, a {@link Signatures#MODIFY} op or 0 when it is absent, on {@code obj} and
     * {@code arg}: 0 or an errno value (EOPNOTSUPP without the op).
     */
    static int modify(long fn, MemorySegment obj, MemorySegment arg) {
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) Signatures.MODIFY_MH.invokeExact(MemorySegment.ofAddress(fn), obj, arg);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    private static final class QueryPort {
        static final long OP = verbs_context.query_port$offset();
        static final MethodHandle MH = LINKER.downcallHandle(verbs_context.query_port.descriptor());
        static final long ATTR_SIZE = ibv_port_attr.layout().byteSize();
    }

    /**
     * {@code ibv_query_port} is a macro for the inline {@code ___ibv_query_port}. The exported
     * symbol {@code ibv_query_port} only fills the older, shorter {@code _compat_ibv_port_attr},
     * so it is only the fallback for libraries without the {@code query_port} extension op.
     * {@code portAttr} must be at least {@code sizeof(struct ibv_port_attr)}.
     */
    public static int ibv_query_port(MemorySegment context, int portNum, MemorySegment portAttr) {
        MemorySegment attr = portAttr.asSlice(0, QueryPort.ATTR_SIZE);
        long fn = op(context, QueryPort.OP);
        if (fn == 0) {
            attr.fill((byte) 0);
            return rdma_h.ibv_query_port(context, (byte) portNum, attr);
        }
        try {
            return (int) QueryPort.MH.invokeExact(MemorySegment.ofAddress(fn), context, (byte) portNum, attr,
                    QueryPort.ATTR_SIZE);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    private static final class QueryDeviceEx {
        static final long OP = verbs_context.query_device_ex$offset();
        static final MethodHandle MH = LINKER.downcallHandle(verbs_context.query_device_ex.descriptor());
        static final long ATTR_SIZE = ibv_device_attr_ex.layout().byteSize();
    }

    /**
     * {@code ibv_query_device_ex}: the extension op, falling back to plain
     * {@code ibv_query_device} into {@code attr->orig_attr} (with the rest zeroed) when the
     * provider lacks it or answers EOPNOTSUPP/ENOSYS. {@code input} may be NULL; a non-zero
     * {@code input->comp_mask} is EINVAL, as in C.
     */
    public static int ibv_query_device_ex(MemorySegment context, MemorySegment input, MemorySegment attr) {
        MemorySegment out = attr.asSlice(0, QueryDeviceEx.ATTR_SIZE);
        if (input.address() != 0
                && ibv_query_device_ex_input.comp_mask(input.reinterpret(ibv_query_device_ex_input.layout().byteSize())) != 0) {
            return Errno.EINVAL;
        }
        long fn = op(context, QueryDeviceEx.OP);
        if (fn != 0) {
            int ret;
            try {
                ret = (int) QueryDeviceEx.MH.invokeExact(MemorySegment.ofAddress(fn), context, input, out,
                        QueryDeviceEx.ATTR_SIZE);
            } catch (Throwable t) {
                throw ErrnoVerbs.rethrow(t);
            }
            if (ret != Errno.EOPNOTSUPP && ret != Errno.ENOSYS) {
                return ret;
            }
        }
        out.fill((byte) 0);
        return rdma_h.ibv_query_device(context, ibv_device_attr_ex.orig_attr(out));
    }

    private static final long CREATE_CQ_EX = verbs_context.create_cq_ex$offset();

    /** {@code ibv_create_cq_ex}: the extension op; NULL with errno EOPNOTSUPP when the provider lacks it. */
    public static MemorySegment ibv_create_cq_ex(MemorySegment errno, MemorySegment context, MemorySegment cqAttr) {
        return create(op(context, CREATE_CQ_EX), errno, context, cqAttr);
    }

    private static final class CreateQpEx {
        static final long OP = verbs_context.create_qp_ex$offset();
        static final int MASK_PD_ONLY = rdma_h.IBV_QP_INIT_ATTR_PD();
    }

    /**
     * {@code ibv_create_qp_ex}: with only {@code IBV_QP_INIT_ATTR_PD} in {@code comp_mask} it is
     * plain {@code ibv_create_qp} (ibv_qp_init_attr is a prefix of ibv_qp_init_attr_ex);
     * otherwise the extension op, NULL with errno EOPNOTSUPP when the provider lacks it.
     */
    public static MemorySegment ibv_create_qp_ex(MemorySegment errno, MemorySegment context, MemorySegment qpInitAttrEx) {
        MemorySegment attr = qpInitAttrEx.asSlice(0, ibv_qp_init_attr_ex.layout().byteSize());
        if (ibv_qp_init_attr_ex.comp_mask(attr) == CreateQpEx.MASK_PD_ONLY) {
            return ErrnoVerbs.ibv_create_qp(errno, ibv_qp_init_attr_ex.pd(attr), attr);
        }
        return create(op(context, CreateQpEx.OP), errno, context, attr);
    }
}
