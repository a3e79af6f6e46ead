// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.jrdma.bindings.generated.ibv_qp_ex;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The extended post API of {@code infiniband/verbs.h} (rdma-core 44): the {@code static inline}
 * {@code ibv_wr_*} functions, which call the function pointers the provider stored in each
 * {@code struct ibv_qp_ex}. jextract cannot bind them (no symbol).
 *
 * <p>Resolve once, call many times, as {@link InlineVerbs} does for post_send: a provider fills
 * the pointers when it creates the queue pair and never changes them (and it picks them per QP:
 * librxe sets only the builders the QP's {@code send_ops_flags} asked for, leaving the others
 * NULL), so a caller reads each pointer once with {@link #function} and passes it back with
 * every call, with the {@code ibv_qp_ex} as a 64-bit address (see InlineVerbs on why that is
 * the same register as a pointer on every ABI the JDK's linker supports).
 *
 * <p>Raw layer: a NULL function pointer is refused here (the C inline would jump to address 0
 * and kill the process), nothing else is checked. Calling a builder outside
 * {@code wr_start}/{@code wr_complete}, or a setter before any builder, corrupts the send queue
 * exactly as it would in C; the jrdma API keeps that order.
 *
 * <p>All calls are critical downcalls (no thread-state transition): the builders and setters
 * write a work queue entry into memory the provider shares with the kernel, {@code wr_start}
 * takes the send queue's spinlock, which only another wr_start..wr_complete section of the same
 * QP holds, and {@code wr_complete} rings the doorbell (librxe: one non-blocking write(2) to the
 * uverbs fd, as post_send does). None call back into Java.
 */
public final class ExtendedPostVerbs {
    private ExtendedPostVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    // ---- where the provider's functions and the per-request fields sit in struct ibv_qp_ex ---
    /** {@code wr_id}: the next builder copies it into its work request. */
    public static final long WR_ID = ibv_qp_ex.wr_id$offset();
    /** {@code wr_flags}: the next builder copies these {@code ibv_send_flags} into its work request. */
    public static final long WR_FLAGS = ibv_qp_ex.wr_flags$offset();
    public static final long WR_ATOMIC_CMP_SWP = ibv_qp_ex.wr_atomic_cmp_swp$offset();
    public static final long WR_ATOMIC_FETCH_ADD = ibv_qp_ex.wr_atomic_fetch_add$offset();
    public static final long WR_BIND_MW = ibv_qp_ex.wr_bind_mw$offset();
    public static final long WR_LOCAL_INV = ibv_qp_ex.wr_local_inv$offset();
    public static final long WR_RDMA_READ = ibv_qp_ex.wr_rdma_read$offset();
    public static final long WR_RDMA_WRITE = ibv_qp_ex.wr_rdma_write$offset();
    public static final long WR_RDMA_WRITE_IMM = ibv_qp_ex.wr_rdma_write_imm$offset();
    public static final long WR_SEND = ibv_qp_ex.wr_send$offset();
    public static final long WR_SEND_IMM = ibv_qp_ex.wr_send_imm$offset();
    public static final long WR_SEND_INV = ibv_qp_ex.wr_send_inv$offset();
    public static final long WR_SEND_TSO = ibv_qp_ex.wr_send_tso$offset();
    public static final long WR_SET_UD_ADDR = ibv_qp_ex.wr_set_ud_addr$offset();
    public static final long WR_SET_XRC_SRQN = ibv_qp_ex.wr_set_xrc_srqn$offset();
    public static final long WR_SET_INLINE_DATA = ibv_qp_ex.wr_set_inline_data$offset();
    public static final long WR_SET_INLINE_DATA_LIST = ibv_qp_ex.wr_set_inline_data_list$offset();
    public static final long WR_SET_SGE = ibv_qp_ex.wr_set_sge$offset();
    public static final long WR_SET_SGE_LIST = ibv_qp_ex.wr_set_sge_list$offset();
    public static final long WR_START = ibv_qp_ex.wr_start$offset();
    public static final long WR_COMPLETE = ibv_qp_ex.wr_complete$offset();
    public static final long WR_ABORT = ibv_qp_ex.wr_abort$offset();
    public static final long WR_ATOMIC_WRITE = ibv_qp_ex.wr_atomic_write$offset();

    // ---- one address-less handle per C signature (the function pointer comes first) ---------
    private static MethodHandle handle(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor, CRITICAL);
    }

    /** (qp): wr_start, wr_abort, wr_send. */
    private static final MethodHandle V_Q = handle(FunctionDescriptor.ofVoid(JAVA_LONG));
    /** (qp) -> int: wr_complete. */
    private static final MethodHandle I_Q = handle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    /** (qp, u32): send_imm, send_inv, local_inv, set_xrc_srqn. */
    private static final MethodHandle V_QI = handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT));
    /** (qp, u32, u64): rdma_read, rdma_write. */
    private static final MethodHandle V_QIL = handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG));
    /** (qp, u32, u64, u32): rdma_write_imm, set_sge. */
    private static final MethodHandle V_QILI =
            handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** (qp, u32, u64, u64): atomic_fetch_add, atomic_write (pointer as the last u64). */
    private static final MethodHandle V_QILL =
            handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    /** (qp, u32, u64, u64, u64): atomic_cmp_swp. */
    private static final MethodHandle V_QILLL =
            handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** (qp, ptr, u32, ptr): bind_mw. */
    private static final MethodHandle V_QLIL =
            handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG));
    /** (qp, ptr, u32, u32): set_ud_addr. */
    private static final MethodHandle V_QLII =
            handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT));
    /** (qp, ptr|size_t, size_t|ptr): set_inline_data, set_inline_data_list, set_sge_list. */
    private static final MethodHandle V_QLL = handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** (qp, void *, size_t) with the data as a segment: set_inline_data from memory the caller does not own. */
    private static final MethodHandle V_QSL = handle(FunctionDescriptor.ofVoid(JAVA_LONG, ADDRESS, JAVA_LONG));
    /** (qp, ptr, u16, u16): send_tso. */
    private static final MethodHandle V_QLSS =
            handle(FunctionDescriptor.ofVoid(JAVA_LONG, ADDRESS, JAVA_SHORT, JAVA_SHORT));

    /**
     * {@code ibv_qp_to_qp_ex} (exported): the {@code struct ibv_qp_ex} of a queue pair created
     * with {@code ibv_create_qp_ex} and {@code IBV_QP_INIT_ATTR_SEND_OPS_FLAGS}; NULL for any
     * other queue pair.
     */
    public static MemorySegment ibv_qp_to_qp_ex(MemorySegment qp) {
        if (qp.address() == 0) {
            throw new NullPointerException("qp is NULL");
        }
        return rdma_h.ibv_qp_to_qp_ex(qp);
    }

    /**
     * The function pointer at {@code qpEx + offset} (one of the {@code WR_*} offsets), or NULL
     * when the provider left it unset: it does not implement the operation, or the QP's
     * {@code send_ops_flags} did not ask for it.
     */
    public static MemorySegment function(long qpEx, long offset) {
        if (qpEx == 0) {
            throw new NullPointerException("qp_ex is NULL");
        }
        long fn = MEMORY.get(JAVA_LONG, qpEx + offset);
        return fn == 0 ? MemorySegment.NULL : MemorySegment.ofAddress(fn);
    }

    /** Writes {@code qp_ex->wr_id} and {@code qp_ex->wr_flags}, which the next builder copies. */
    public static void setRequest(long qpEx, long wrId, int flags) {
        MEMORY.set(JAVA_LONG, qpEx + WR_ID, wrId);
        MEMORY.set(JAVA_INT, qpEx + WR_FLAGS, flags);
    }

    private static void check(MemorySegment fn) {
        if (fn.address() == 0) {
            throw new IllegalArgumentException("NULL function pointer: the provider does not implement this ibv_wr_ call"
                    + " on this queue pair");
        }
    }

    /** {@code ibv_wr_start}: takes the send queue for a batch of work requests. */
    public static void wrStart(MemorySegment fn, long qpEx) {
        check(fn);
        try {
            V_Q.invokeExact(fn, qpEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_complete}: posts the batch and releases the send queue; 0 or an errno value (nothing posted then). */
    public static int wrComplete(MemorySegment fn, long qpEx) {
        check(fn);
        try {
            return (int) I_Q.invokeExact(fn, qpEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_abort}: drops the batch and releases the send queue. */
    public static void wrAbort(MemorySegment fn, long qpEx) {
        wrStart(fn, qpEx);   // same signature: void (qp)
    }

    /** {@code ibv_wr_send}. */
    public static void wrSend(MemorySegment fn, long qpEx) {
        wrStart(fn, qpEx);
    }

    /**
     * A builder or setter with one 32-bit argument: {@code ibv_wr_send_imm} (the immediate in
     * network byte order), {@code ibv_wr_send_inv}, {@code ibv_wr_local_inv},
     * {@code ibv_wr_set_xrc_srqn}.
     */
    public static void wrInt(MemorySegment fn, long qpEx, int value) {
        check(fn);
        try {
            V_QI.invokeExact(fn, qpEx, value);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_rdma_read}, {@code ibv_wr_rdma_write}: (rkey, remote address). */
    public static void wrRemote(MemorySegment fn, long qpEx, int rkey, long remoteAddress) {
        check(fn);
        try {
            V_QIL.invokeExact(fn, qpEx, rkey, remoteAddress);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code ibv_wr_rdma_write_imm} (rkey, remote address, immediate in network byte order) and
     * {@code ibv_wr_set_sge} (lkey, address, length): the same C signature.
     */
    public static void wrIntLongInt(MemorySegment fn, long qpEx, int a, long b, int c) {
        check(fn);
        try {
            V_QILI.invokeExact(fn, qpEx, a, b, c);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code ibv_wr_atomic_fetch_add} (rkey, remote address, add) and
     * {@code ibv_wr_atomic_write} (rkey, remote address, address of the 8 bytes to write).
     */
    public static void wrIntLongLong(MemorySegment fn, long qpEx, int rkey, long remoteAddress, long value) {
        check(fn);
        try {
            V_QILL.invokeExact(fn, qpEx, rkey, remoteAddress, value);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_atomic_cmp_swp}: (rkey, remote address, compare, swap). */
    public static void wrAtomicCmpSwp(MemorySegment fn, long qpEx, int rkey, long remoteAddress, long compare,
            long swap) {
        check(fn);
        try {
            V_QILLL.invokeExact(fn, qpEx, rkey, remoteAddress, compare, swap);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_bind_mw}: (struct ibv_mw *, new rkey, const struct ibv_mw_bind_info *). */
    public static void wrBindMw(MemorySegment fn, long qpEx, long mw, int rkey, long bindInfo) {
        check(fn);
        try {
            V_QLIL.invokeExact(fn, qpEx, mw, rkey, bindInfo);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_set_ud_addr}: (struct ibv_ah *, remote QPN, remote Q_Key). */
    public static void wrSetUdAddr(MemorySegment fn, long qpEx, long ah, int remoteQpn, int remoteQkey) {
        check(fn);
        try {
            V_QLII.invokeExact(fn, qpEx, ah, remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code ibv_wr_set_inline_data} (address, length), {@code ibv_wr_set_inline_data_list}
     * (count, struct ibv_data_buf *) and {@code ibv_wr_set_sge_list} (count, struct ibv_sge *):
     * the same C signature.
     */
    public static void wrLongLong(MemorySegment fn, long qpEx, long a, long b) {
        check(fn);
        try {
            V_QLL.invokeExact(fn, qpEx, a, b);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * {@code ibv_wr_set_inline_data} with the data as a native segment: the linker keeps the
     * segment's memory alive during the call, in which the provider copies it into the work
     * request, so an arena closed by another thread meanwhile is refused rather than read freed.
     */
    public static void wrSetInlineData(MemorySegment fn, long qpEx, MemorySegment data) {
        check(fn);
        try {
            V_QSL.invokeExact(fn, qpEx, data, data.byteSize());
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wr_send_tso}: (header, header size, MSS); the provider copies the header during the call. */
    public static void wrSendTso(MemorySegment fn, long qpEx, MemorySegment header, short mss) {
        check(fn);
        try {
            V_QLSS.invokeExact(fn, qpEx, header, (short) header.byteSize(), mss);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }
}
