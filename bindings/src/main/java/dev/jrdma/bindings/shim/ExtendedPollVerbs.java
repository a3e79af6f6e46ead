// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static dev.jrdma.bindings.shim.NativeMemory.MEMORY;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.jrdma.bindings.generated.ibv_cq;
import dev.jrdma.bindings.generated.ibv_cq_ex;
import dev.jrdma.bindings.generated.ibv_modify_cq_attr;
import dev.jrdma.bindings.generated.verbs_context;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The extended CQ of {@code infiniband/verbs.h} (rdma-core 44): the {@code static inline}
 * {@code ibv_start_poll}, {@code ibv_next_poll}, {@code ibv_end_poll} and
 * {@code ibv_wc_read_*}, which call the function pointers the provider stored in each
 * {@code struct ibv_cq_ex}, and {@code ibv_modify_cq} (a {@code verbs_context} extension op).
 *
 * <p>Resolve once, call many times, as in {@link ExtendedPostVerbs}: the provider picks the
 * readers per CQ from its {@code wc_flags} (librxe leaves a reader NULL unless its field was
 * asked for), so read each pointer once with {@link #function}. The CQ is passed as a 64-bit
 * address. A NULL pointer is refused here instead of jumped to.
 *
 * <p>Critical downcalls: start_poll takes the CQ's spinlock (held until end_poll, or, in
 * librxe before rdma-core 59, until a next_poll that finds nothing; see
 * {@link #nextPollReleasesOnEmpty}), the others read the current completion entry. None block
 * or call back into Java.
 */
public final class ExtendedPollVerbs {
    private ExtendedPollVerbs() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    // ---- struct ibv_cq_ex ------------------------------------------------------------------
    /** {@code status}: the current completion's {@code enum ibv_wc_status}, valid after a successful start/next_poll. */
    public static final long STATUS = ibv_cq_ex.status$offset();
    /** {@code wr_id}: the current completion's work request id. */
    public static final long WR_ID = ibv_cq_ex.wr_id$offset();
    public static final long START_POLL = ibv_cq_ex.start_poll$offset();
    public static final long NEXT_POLL = ibv_cq_ex.next_poll$offset();
    public static final long END_POLL = ibv_cq_ex.end_poll$offset();
    public static final long READ_OPCODE = ibv_cq_ex.read_opcode$offset();
    public static final long READ_VENDOR_ERR = ibv_cq_ex.read_vendor_err$offset();
    public static final long READ_BYTE_LEN = ibv_cq_ex.read_byte_len$offset();
    public static final long READ_IMM_DATA = ibv_cq_ex.read_imm_data$offset();
    public static final long READ_QP_NUM = ibv_cq_ex.read_qp_num$offset();
    public static final long READ_SRC_QP = ibv_cq_ex.read_src_qp$offset();
    public static final long READ_WC_FLAGS = ibv_cq_ex.read_wc_flags$offset();
    public static final long READ_SLID = ibv_cq_ex.read_slid$offset();
    public static final long READ_SL = ibv_cq_ex.read_sl$offset();
    public static final long READ_DLID_PATH_BITS = ibv_cq_ex.read_dlid_path_bits$offset();
    public static final long READ_COMPLETION_TS = ibv_cq_ex.read_completion_ts$offset();
    public static final long READ_CVLAN = ibv_cq_ex.read_cvlan$offset();
    public static final long READ_FLOW_TAG = ibv_cq_ex.read_flow_tag$offset();
    public static final long READ_TM_INFO = ibv_cq_ex.read_tm_info$offset();
    public static final long READ_COMPLETION_WALLCLOCK_NS = ibv_cq_ex.read_completion_wallclock_ns$offset();

    private static MethodHandle handle(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor, CRITICAL);
    }

    private static final MethodHandle I_CL = handle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle I_C = handle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    private static final MethodHandle V_C = handle(FunctionDescriptor.ofVoid(JAVA_LONG));
    private static final MethodHandle B_C = handle(FunctionDescriptor.of(JAVA_BYTE, JAVA_LONG));
    private static final MethodHandle S_C = handle(FunctionDescriptor.of(JAVA_SHORT, JAVA_LONG));
    private static final MethodHandle L_C = handle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    private static final MethodHandle V_CL = handle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG));

    /** {@code ibv_cq_ex_to_cq}: the same object, seen as {@code struct ibv_cq} (its first members). */
    public static MemorySegment ibv_cq_ex_to_cq(MemorySegment cqEx) {
        return cqEx.reinterpret(ibv_cq.layout().byteSize());
    }

    /** The function pointer at {@code cqEx + offset} (one of the offsets above), or NULL when the provider left it unset. */
    public static MemorySegment function(long cqEx, long offset) {
        if (cqEx == 0) {
            throw new NullPointerException("cq_ex is NULL");
        }
        long fn = MEMORY.get(JAVA_LONG, cqEx + offset);
        return fn == 0 ? MemorySegment.NULL : MemorySegment.ofAddress(fn);
    }

    /** {@code cq->status}, of the completion start/next_poll made current. */
    public static int status(long cqEx) {
        return MEMORY.get(JAVA_INT, cqEx + STATUS);
    }

    /** {@code cq->wr_id}, of the completion start/next_poll made current. */
    public static long wrId(long cqEx) {
        return MEMORY.get(JAVA_LONG, cqEx + WR_ID);
    }

    private static void check(MemorySegment fn) {
        if (fn.address() == 0) {
            throw new IllegalArgumentException("NULL function pointer: the provider does not implement this call on"
                    + " this CQ (a wc_read_ of a field the CQ was not created with?)");
        }
    }

    /**
     * {@code ibv_start_poll(cq, attr)}: 0 with the first completion current (the CQ is then
     * locked until end_poll), ENOENT when the CQ is empty (nothing to end), another errno value
     * on error. {@code attr} is a {@code struct ibv_poll_cq_attr *} whose comp_mask must be 0.
     */
    public static int startPoll(MemorySegment fn, long cqEx, long attr) {
        check(fn);
        try {
            return (int) I_CL.invokeExact(fn, cqEx, attr);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_next_poll}: 0 with the next completion current, ENOENT when there is none. */
    public static int nextPoll(MemorySegment fn, long cqEx) {
        check(fn);
        try {
            return (int) I_C.invokeExact(fn, cqEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_end_poll}: consumes the completions read and unlocks the CQ. */
    public static void endPoll(MemorySegment fn, long cqEx) {
        check(fn);
        try {
            V_C.invokeExact(fn, cqEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /**
     * A 32-bit reader: {@code ibv_wc_read_opcode}, {@code _vendor_err}, {@code _byte_len},
     * {@code _imm_data} (network byte order) and {@code _invalidated_rkey} (the same function,
     * read_imm_data: the union holds either), {@code _qp_num}, {@code _src_qp},
     * {@code _wc_flags}, {@code _slid}, {@code _flow_tag}.
     */
    public static int readInt(MemorySegment fn, long cqEx) {
        check(fn);
        try {
            return (int) I_C.invokeExact(fn, cqEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** An 8-bit reader: {@code ibv_wc_read_sl}, {@code ibv_wc_read_dlid_path_bits}; unsigned. */
    public static int readByte(MemorySegment fn, long cqEx) {
        check(fn);
        try {
            return Byte.toUnsignedInt((byte) B_C.invokeExact(fn, cqEx));
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** The 16-bit reader {@code ibv_wc_read_cvlan}; unsigned. */
    public static int readShort(MemorySegment fn, long cqEx) {
        check(fn);
        try {
            return Short.toUnsignedInt((short) S_C.invokeExact(fn, cqEx));
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** A 64-bit reader: {@code ibv_wc_read_completion_ts}, {@code ibv_wc_read_completion_wallclock_ns}. */
    public static long readLong(MemorySegment fn, long cqEx) {
        check(fn);
        try {
            return (long) L_C.invokeExact(fn, cqEx);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    /** {@code ibv_wc_read_tm_info(cq, struct ibv_wc_tm_info *)}. */
    public static void readTmInfo(MemorySegment fn, long cqEx, long tmInfo) {
        check(fn);
        try {
            V_CL.invokeExact(fn, cqEx, tmInfo);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    private static final class ModifyCq {
        static final long OP = verbs_context.modify_cq$offset();
        static final long ATTR_SIZE = ibv_modify_cq_attr.layout().byteSize();
    }

    /**
     * {@code ibv_modify_cq(cq, attr)}: the {@code modify_cq} extension op of the CQ's context;
     * 0 or an errno value, EOPNOTSUPP when the provider lacks the op (librxe 44 does).
     */
    public static int ibv_modify_cq(MemorySegment cq, MemorySegment attr) {
        long fn = VerbsContextOps.objectOp(cq, ibv_cq.context$offset(), ModifyCq.OP, "cq");
        return VerbsContextOps.modify(fn, cq, attr.asSlice(0, ModifyCq.ATTR_SIZE));
    }

    /**
     * Whether {@code startPoll}, a start_poll function of a CQ, belongs to a librxe whose
     * next_poll already ends the poll when it finds no further completion: in rdma-core before
     * 55, librxe's cq_next_poll stores the consumer index and releases the CQ's lock on ENOENT,
     * and a following end_poll (which the verbs contract requires) advances the consumer index
     * once more, past the producer, so that the next start_poll returns a completion entry that
     * was never written (fixed by rdma-core commit b78b414, "rxe: fix completion queue consumer
     * index overrun", in v55; v55 to v58 still unlock twice, fixed in v59). For such a provider
     * the caller must not call end_poll after next_poll returned ENOENT.
     *
     * <p>Decided from /proc/self/maps: the mapped file that holds {@code startPoll}, and the
     * rdma-core version in the name of the mapped libibverbs (libibverbs.so.1.14.44.0 is 44;
     * providers and libibverbs ship from one source package). Control path only: reads a file.
     */
    public static boolean nextPollReleasesOnEmpty(MemorySegment startPoll) {
        Optional<Path> library = mappedFile(startPoll.address());
        if (library.isEmpty() || library.get().getFileName() == null
                || !library.get().getFileName().toString().startsWith("librxe-")) {
            return false;
        }
        int version = LibraryInfo.loaded("libibverbs").map(ExtendedPollVerbs::rdmaCoreVersion).orElse(-1);
        return version >= 0 && version < 55;
    }

    /** rdma-core's release in a libibverbs file name: libibverbs.so.1.14.44.0 -> 44; -1 if it has none. */
    static int rdmaCoreVersion(Path libibverbs) {
        String[] parts = libibverbs.getFileName().toString().split("\\.");
        // libibverbs . so . 1 . <abi minor> . <rdma-core release> . <patch>
        if (parts.length < 6) {
            return -1;
        }
        try {
            return Integer.parseInt(parts[4]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Optional<Path> mappedFile(long address) {
        Path maps = Path.of("/proc/self/maps");
        if (address == 0 || !Files.isReadable(maps)) {
            return Optional.empty();
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(maps);
        } catch (IOException e) {
            return Optional.empty();
        }
        for (String line : lines) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            int slash = line.indexOf('/');
            if (dash < 0 || space < dash || slash < 0) {
                continue;
            }
            long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
            long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
            if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                return Optional.of(Path.of(line.substring(slash)));
            }
        }
        return Optional.empty();
    }
}
