// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.shim.NativeMemory.MEMORY;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.ibv_context_ops;
import dev.jrdma.bindings.generated.ibv_cq;
import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_srq;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.generated.verbs_context;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Hand-written equivalents of the {@code static inline} verbs of {@code infiniband/verbs.h}
 * (rdma-core 44), which jextract cannot bind because they have no symbol.
 *
 * <p>They dispatch the way the C inlines do (see docs on each method): through the ops table
 * embedded in {@code struct ibv_context} (the data path: post, poll, notify), or, for the
 * size-passing wrappers, to the exported function with {@code sizeof} filled in. The inlines
 * that dispatch through the extension ops of the enclosing {@code struct verbs_context} are
 * {@link VerbsContextOps}. Offsets come from the generated layouts,
 * which {@code LayoutTest} checks against a compiled C probe.
 *
 * <p>This is a raw layer: pointers are not validated beyond a NULL check, and a dangling
 * pointer crashes the process exactly as it would in C. The jrdma API is the safe layer.
 * Return conventions follow C: post/poll/notify return an errno value or a count.
 */
public final class InlineVerbs {
    private InlineVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();

    // ---- group A: struct ibv_context_ops, embedded in struct ibv_context ---------------------
    // Each object (qp, cq, srq) starts with its context pointer; the op is a function pointer
    // at context + offsetof(ibv_context, ops) + offsetof(ibv_context_ops, op).
    private static final long QP_CONTEXT = ibv_qp.context$offset();
    private static final long CQ_CONTEXT = ibv_cq.context$offset();
    private static final long SRQ_CONTEXT = ibv_srq.context$offset();
    static final long OPS = ibv_context.ops$offset();
    private static final long OP_POST_SEND = OPS + ibv_context_ops.post_send$offset();
    private static final long OP_POST_RECV = OPS + ibv_context_ops.post_recv$offset();
    private static final long OP_POST_SRQ_RECV = OPS + ibv_context_ops.post_srq_recv$offset();
    private static final long OP_POLL_CQ = OPS + ibv_context_ops.poll_cq$offset();
    private static final long OP_REQ_NOTIFY_CQ = OPS + ibv_context_ops.req_notify_cq$offset();

    // The data-path ops are called through critical downcall handles (Linker.Option.critical):
    // no thread-state transition, which is most of an FFM downcall's fixed cost. That is safe for
    // these five because they never call back into Java, never block (post/poll write to queues
    // in memory shared with the kernel or the HCA; rxe's post_send and req_notify_cq add one
    // non-blocking write(2) to the uverbs fd) and return in microseconds, so a safepoint waits
    // no longer than that. Heap segments are not allowed (critical(false)): work requests and
    // completions live in native memory anyway.
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final MethodHandle POST_SEND =
            LINKER.downcallHandle(ibv_context_ops.post_send.descriptor(), CRITICAL);
    private static final MethodHandle POST_RECV =
            LINKER.downcallHandle(ibv_context_ops.post_recv.descriptor(), CRITICAL);
    private static final MethodHandle POST_SRQ_RECV =
            LINKER.downcallHandle(ibv_context_ops.post_srq_recv.descriptor(), CRITICAL);
    private static final MethodHandle POLL_CQ =
            LINKER.downcallHandle(ibv_context_ops.poll_cq.descriptor(), CRITICAL);
    private static final MethodHandle REQ_NOTIFY_CQ =
            LINKER.downcallHandle(ibv_context_ops.req_notify_cq.descriptor(), CRITICAL);

    // The resolve-once variants below take the object pointers as 64-bit integers. Every ABI the
    // JDK's linker supports passes a pointer and a 64-bit integer argument in the same general
    // register (SysV x86-64, Windows x64, AAPCS64, ppc64le, s390x, riscv64: all LP64/LLP64), so
    // the C function sees the same bits. What it saves is the linker's per-segment work: the
    // null, heap and liveness checks and the arena acquire/release around the call, a few
    // dozen instructions per call that qemu TCG runs at ~1 ns each (SegmentArgumentBench: ~50
    // vs ~41 ns per call in the Soft-RoCE VM). The caller keeps the memory alive instead.
    private static final FunctionDescriptor INT_3_POINTERS =
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle POST_SEND_ADDRESSES = LINKER.downcallHandle(INT_3_POINTERS, CRITICAL);
    private static final MethodHandle POST_RECV_ADDRESSES = LINKER.downcallHandle(INT_3_POINTERS, CRITICAL);
    private static final MethodHandle POST_SRQ_RECV_ADDRESSES = LINKER.downcallHandle(INT_3_POINTERS, CRITICAL);
    private static final MethodHandle POLL_CQ_ADDRESSES = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), CRITICAL);
    private static final MethodHandle REQ_NOTIFY_CQ_ADDRESSES = LINKER.downcallHandle(
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), CRITICAL);

    static {
        if (ADDRESS.byteSize() != Long.BYTES) {
            throw new ExceptionInInitializerError("jrdma needs a 64-bit JVM: pointers are "
                    + ADDRESS.byteSize() + " bytes here");
        }
    }

    /**
     * One function-pointer segment per op, reused while the op's address stays the same (one
     * provider per process is the common case). An address-less downcall handle takes the
     * function as a MemorySegment, and wrapping the address anew on every call allocates 16-24
     * bytes wherever the JIT cannot scalar-replace it (C1, or C2 when the call is not inlined).
     * Racy publication is fine: a segment is immutable and its fields are final.
     */
    private static final class FunctionCache {
        private MemorySegment last = MemorySegment.NULL;

        MemorySegment of(long address) {
            MemorySegment fn = last;
            if (fn.address() != address) {
                fn = MemorySegment.ofAddress(address);
                last = fn;
            }
            return fn;
        }
    }

    private static final FunctionCache POST_SEND_FN = new FunctionCache();
    private static final FunctionCache POST_RECV_FN = new FunctionCache();
    private static final FunctionCache POST_SRQ_RECV_FN = new FunctionCache();
    private static final FunctionCache POLL_CQ_FN = new FunctionCache();
    private static final FunctionCache REQ_NOTIFY_CQ_FN = new FunctionCache();

    /**
     * The function pointer at {@code context(obj) + opOffset}, or 0 when the provider left it NULL.
     * Package-private for {@link MemoryWindowVerbs}, whose ops live in the same table.
     */
    static long contextOp(MemorySegment obj, long contextOffset, long opOffset, String what) {
        long address = obj.address();
        if (address == 0) {
            throw new NullPointerException(what + " is NULL");
        }
        long context = MEMORY.get(JAVA_LONG, address + contextOffset);
        return MEMORY.get(JAVA_LONG, context + opOffset);
    }

    private static MemorySegment resolved(long fn) {
        return fn == 0 ? MemorySegment.NULL : MemorySegment.ofAddress(fn);
    }

    // ---- resolve once, call many times ------------------------------------------------------
    // The ops table is filled when the context is opened and never changes afterwards, so a
    // caller that keeps the QP/CQ/SRQ can read the function pointer once and pass it back with
    // every call: two dependent loads fewer per call, and no segment per call at any JIT tier.

    /** {@code qp->context->ops.post_send}, for {@link #postSend}; NULL if the provider has none. */
    public static MemorySegment postSendFunction(MemorySegment qp) {
        return resolved(contextOp(qp, QP_CONTEXT, OP_POST_SEND, "qp"));
    }

    /** {@code qp->context->ops.post_recv}, for {@link #postRecv}; NULL if the provider has none. */
    public static MemorySegment postRecvFunction(MemorySegment qp) {
        return resolved(contextOp(qp, QP_CONTEXT, OP_POST_RECV, "qp"));
    }

    /** {@code srq->context->ops.post_srq_recv}, for {@link #postSrqRecv}; NULL if the provider has none. */
    public static MemorySegment postSrqRecvFunction(MemorySegment srq) {
        return resolved(contextOp(srq, SRQ_CONTEXT, OP_POST_SRQ_RECV, "srq"));
    }

    /** {@code cq->context->ops.poll_cq}, for {@link #pollCq}; NULL if the provider has none. */
    public static MemorySegment pollCqFunction(MemorySegment cq) {
        return resolved(contextOp(cq, CQ_CONTEXT, OP_POLL_CQ, "cq"));
    }

    /** {@code cq->context->ops.req_notify_cq}, for {@link #reqNotifyCq}; NULL if the provider has none. */
    public static MemorySegment reqNotifyCqFunction(MemorySegment cq) {
        return resolved(contextOp(cq, CQ_CONTEXT, OP_REQ_NOTIFY_CQ, "cq"));
    }

    /**
     * {@code ibv_post_send} through a function from {@link #postSendFunction} of the same
     * {@code qp}, with the pointers as addresses: the caller keeps {@code wr} (and everything
     * it points to) and {@code badWr} alive for the call. Returns 0 or an errno value
     * (EOPNOTSUPP for a NULL function).
     */
    public static int postSend(MemorySegment fn, long qp, long wr, long badWr) {
        if (fn.address() == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) POST_SEND_ADDRESSES.invokeExact(fn, qp, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_post_recv} through a function from {@link #postRecvFunction} of the same {@code qp}; as {@link #postSend}. */
    public static int postRecv(MemorySegment fn, long qp, long wr, long badWr) {
        if (fn.address() == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) POST_RECV_ADDRESSES.invokeExact(fn, qp, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_post_srq_recv} through a function from {@link #postSrqRecvFunction} of the same {@code srq}; as {@link #postSend}. */
    public static int postSrqRecv(MemorySegment fn, long srq, long wr, long badWr) {
        if (fn.address() == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) POST_SRQ_RECV_ADDRESSES.invokeExact(fn, srq, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code ibv_poll_cq} through a function from {@link #pollCqFunction} of the same {@code cq}:
     * the number of completions written to {@code wc} (room for {@code numEntries}, kept alive by
     * the caller), or a negative value on error.
     */
    public static int pollCq(MemorySegment fn, long cq, int numEntries, long wc) {
        if (fn.address() == 0) {
            return -Errno.EOPNOTSUPP;
        }
        try {
            return (int) POLL_CQ_ADDRESSES.invokeExact(fn, cq, numEntries, wc);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_req_notify_cq} through a function from {@link #reqNotifyCqFunction} of the same {@code cq}. */
    public static int reqNotifyCq(MemorySegment fn, long cq, int solicitedOnly) {
        if (fn.address() == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) REQ_NOTIFY_CQ_ADDRESSES.invokeExact(fn, cq, solicitedOnly);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** Calls {@code mh}, one of the segment-typed post handles, on {@code fn}. */
    private static int invokePost(MethodHandle mh, MemorySegment fn, MemorySegment obj, MemorySegment wr,
            MemorySegment badWr) {
        try {
            return (int) mh.invokeExact(fn, obj, wr, badWr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    // ---- the C signatures: look the function up on every call, like the C inlines -----------

    /** {@code ibv_post_send}: {@code qp->context->ops.post_send(qp, wr, bad_wr)}; returns 0 or an errno value. */
    public static int ibv_post_send(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        // @start region="post-send"
        long fn = contextOp(qp, QP_CONTEXT, OP_POST_SEND, "qp");
        return fn == 0 ? Errno.EOPNOTSUPP : invokePost(POST_SEND, POST_SEND_FN.of(fn), qp, wr, badWr);
        // @end
    }

    /** {@code ibv_post_recv}: {@code qp->context->ops.post_recv(qp, wr, bad_wr)}; returns 0 or an errno value. */
    public static int ibv_post_recv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        long fn = contextOp(qp, QP_CONTEXT, OP_POST_RECV, "qp");
        return fn == 0 ? Errno.EOPNOTSUPP : invokePost(POST_RECV, POST_RECV_FN.of(fn), qp, wr, badWr);
    }

    /** {@code ibv_post_srq_recv}: {@code srq->context->ops.post_srq_recv(srq, wr, bad_wr)}. */
    public static int ibv_post_srq_recv(MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        long fn = contextOp(srq, SRQ_CONTEXT, OP_POST_SRQ_RECV, "srq");
        return fn == 0 ? Errno.EOPNOTSUPP : invokePost(POST_SRQ_RECV, POST_SRQ_RECV_FN.of(fn), srq, wr, badWr);
    }

    /**
     * {@code ibv_poll_cq}: {@code cq->context->ops.poll_cq(cq, num_entries, wc)}. Returns the
     * number of completions written to {@code wc} (an array of {@code num_entries} ibv_wc), or a
     * negative value on error.
     */
    public static int ibv_poll_cq(MemorySegment cq, int numEntries, MemorySegment wc) {
        long fn = contextOp(cq, CQ_CONTEXT, OP_POLL_CQ, "cq");
        if (fn == 0) {
            return -Errno.EOPNOTSUPP;
        }
        try {
            return (int) POLL_CQ.invokeExact(POLL_CQ_FN.of(fn), cq, numEntries, wc);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_req_notify_cq}: {@code cq->context->ops.req_notify_cq(cq, solicited_only)}; 0 or errno value. */
    public static int ibv_req_notify_cq(MemorySegment cq, int solicitedOnly) {
        long fn = contextOp(cq, CQ_CONTEXT, OP_REQ_NOTIFY_CQ, "cq");
        if (fn == 0) {
            return Errno.EOPNOTSUPP;
        }
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(REQ_NOTIFY_CQ_FN.of(fn), cq, solicitedOnly);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    // ---- group C, the extension ops of struct verbs_context, is VerbsContextOps ----------

    // ---- group D: size-passing wrappers ---------------------------------------------------
    private static final long GID_ENTRY_SIZE = ibv_gid_entry.layout().byteSize();

    /** {@code ibv_query_gid_ex}: {@code _ibv_query_gid_ex(..., sizeof(struct ibv_gid_entry))}; 0 or an errno value. */
    public static int ibv_query_gid_ex(MemorySegment context, int portNum, int gidIndex, MemorySegment entry, int flags) {
        return rdma_h._ibv_query_gid_ex(context, portNum, gidIndex, entry.asSlice(0, GID_ENTRY_SIZE), flags,
                GID_ENTRY_SIZE);
    }

    /**
     * {@code ibv_query_gid_table}: {@code _ibv_query_gid_table(..., sizeof(struct ibv_gid_entry))}.
     * Returns the number of valid entries written, or a negative errno value.
     */
    public static long ibv_query_gid_table(MemorySegment context, MemorySegment entries, long maxEntries, int flags) {
        return rdma_h._ibv_query_gid_table(context, entries.asSlice(0, maxEntries * GID_ENTRY_SIZE), maxEntries,
                flags, GID_ENTRY_SIZE);
    }
}
