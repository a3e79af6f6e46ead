// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One extended post of one work request in ONE downcall: {@code ibv_wr_start}, {@code wr_id} and
 * {@code wr_flags}, the operation's builder, its data setter ({@code ibv_wr_set_sge} or
 * {@code ibv_wr_set_inline_data}), {@code ibv_wr_set_ud_addr} on UD, {@code ibv_wr_complete},
 * called in that order by at most 32 instructions of x86-64 machine code, as the inlines of
 * {@code verbs.h} call them from C (perftest's loop). The caller fills a <em>post block</em> of
 * native memory once ({@link #BLOCK_SIZE} bytes, the {@code *_AT} offsets below) and passes its
 * address; the code reads the provider's functions and every argument from it.
 *
 * <p>Why: through {@link ExtendedPostVerbs} the same post is four or five critical downcalls,
 * each an FFM stub (~37 instructions) with the JIT's spills of every live value around it, and
 * a try/catch for {@code wr_abort}: 565 user instructions per 2-byte RDMA write where the
 * classic {@code ibv_post_send}, one downcall, is 355 (perf-gate, 2026-11-28). The instructions
 * are the same on a hardware NIC, where the provider's share is small.
 *
 * <p>One routine per shape of request, picked when the request is prepared ({@link #routine}):
 * the downcall's target is a one-instruction entry that jumps to the routine the block names, and
 * each routine loads only the argument slots its builder and data setter take
 * ({@code wr_send(qp)}, {@code wr_rdma_write(qp, rkey, raddr)},
 * {@code wr_atomic_cmp_swp(qp, rkey, raddr, compare, swap)}, {@code wr_set_sge(qp, lkey, addr,
 * length)}, {@code wr_set_inline_data(qp, addr, length)}, {@code wr_set_ud_addr(qp, ah, qpn,
 * qkey)}) and has a data or UD step only when the request has one: no test at post time. A
 * 32-bit parameter in a 64-bit slot is read from the register's low half, as the ABI says.
 * Nothing between {@code wr_start} and {@code wr_complete} can fail, so there is no
 * {@code wr_abort} path.
 *
 * <p>The downcall is critical (no thread-state transition), as each {@code ibv_wr_*} call in
 * {@link ExtendedPostVerbs} is: the provider's functions neither block nor call back. The code
 * lives in a page of its own, written once, then read-only and executable, never unmapped.
 * Not used (then {@link #available()} is false and {@link #unavailable()} says why; callers
 * take the four-downcall path): another architecture or OS, executable memory refused
 * ({@code mprotect(PROT_EXEC)}, W^X policies), a {@code struct ibv_qp_ex} whose {@code wr_id}
 * or {@code wr_flags} is not where the listing stores it, or
 * {@code -Djrdma.extendedPost.trampoline=false}.
 *
 * <p>Raw layer: the block's functions must be the queue pair's, non-NULL where called, and the
 * caller must hold the send queue (no other {@code wr_start} section open on the queue pair)
 * and keep the block alive during the call, as for the C inlines.
 */
public final class ExtendedPostTrampoline {
    private ExtendedPostTrampoline() {}

    // ---- the post block: 8-byte slots --------------------------------------------------------
    /** {@code struct ibv_qp_ex *}. */
    public static final long QP_EX_AT = 0;
    /** {@code wr_start}. */
    public static final long START_AT = 8;
    /** The wr_id stored into {@code qp_ex->wr_id}. */
    public static final long WR_ID_AT = 16;
    /**
     * The {@code ibv_send_flags} stored into {@code qp_ex->wr_flags} (the slot's low 32 bits; its
     * high 32 bits, 0, go into the padding after wr_flags: the routine copies wr_id and this slot
     * as 16 bytes).
     */
    public static final long WR_FLAGS_AT = 24;
    /** The operation's builder ({@code wr_send}, {@code wr_rdma_write}, ...). */
    public static final long OPERATION_AT = 32;
    /** The builder's arguments after the queue pair, in order (unused slots are ignored). */
    public static final long OPERATION_ARGS_AT = 40;
    /** {@code wr_set_sge} or {@code wr_set_inline_data} (called by a routine with a data step). */
    public static final long DATA_AT = 72;
    /** The data setter's arguments after the queue pair: (lkey, addr, length) or (addr, length). */
    public static final long DATA_ARGS_AT = 80;
    /** {@code wr_set_ud_addr} (called by a routine with a UD step). */
    public static final long UD_AT = 104;
    /** Its arguments after the queue pair: (ah, remote QPN, remote Q_Key). */
    public static final long UD_ARGS_AT = 112;
    /** {@code wr_complete}. */
    public static final long COMPLETE_AT = 136;
    /** The routine for this block's shape, from {@link #routine}: the entry jumps to it. */
    public static final long ROUTINE_AT = 144;
    /** The block's size in bytes (align it to 8). */
    public static final long BLOCK_SIZE = 152;

    /**
     * Where the listing stores wr_id and wr_flags in {@code struct ibv_qp_ex}, and where the
     * member after them begins (checked against the generated layout): the routine stores the
     * 16 bytes from wr_id in one move, wr_id, wr_flags and the padding that aligns the next
     * member (a function pointer), so no member but those two is written.
     */
    static final long QP_EX_WR_ID = 168;
    static final long QP_EX_WR_FLAGS = 176;
    static final long QP_EX_AFTER_FLAGS = 184;

    /** The most arguments after the queue pair: a builder's (cmp_swp: rkey, raddr, compare, swap), a data setter's. */
    public static final int MAX_OPERATION_ARGS = 4;
    public static final int MAX_DATA_ARGS = 3;

    /** One instruction: its bytes (hex), its AT&T text for {@code as}, a label line has no bytes. */
    record Line(String hex, String asm) {}

    private static Line op(String hex, String asm) {
        return new Line(hex, asm);
    }

    /** The entry, the downcall's target: on to the block's routine, with rdi (the block) as it came. */
    static final List<Line> ENTRY = List.of(op("ffa790000000", "jmp *144(%rdi)"));

    /** Loads of the builder's argument slots, in ABI order: (rsi, rdx, rcx, r8) from 40, 48, 56, 64. */
    private static final List<Line> OPERATION_ARGS = List.of(op("488b7328", "mov 40(%rbx), %rsi"),
            op("488b5330", "mov 48(%rbx), %rdx"), op("488b4b38", "mov 56(%rbx), %rcx"), op("4c8b4340", "mov 64(%rbx), %r8"));
    /** Loads of the data setter's slots: (rsi, rdx, rcx) from 80, 88, 96. */
    private static final List<Line> DATA_ARGS = List.of(op("488b7350", "mov 80(%rbx), %rsi"),
            op("488b5358", "mov 88(%rbx), %rdx"), op("488b4b60", "mov 96(%rbx), %rcx"));
    private static final Line QP_EX = op("488b3b", "mov (%rbx), %rdi");

    /**
     * The routine for one shape of request, {@code int post(struct post_block *b)}: as many
     * argument loads as its builder and data setter take, a data step only when it has data, a
     * UD step only on UD. So a loop's post runs no test and no load it does not need (a SEND of
     * one SGE on RC: 17 instructions and the entry's jump). On entry rsp is 8 mod 16 (the
     * return address); one push makes it 16-aligned for every call below, as the ABI wants at a
     * call. rbx is callee-saved, so it keeps the block across the provider's calls and is
     * restored before the tail call. The queue pair is reloaded from the block before each call
     * (one load from a line already in L1) rather than kept in a second saved register, which
     * would need a second push and an 8-byte pad. wr_id and wr_flags are one 16-byte copy
     * ({@code movups}, any alignment; SSE is part of every x86-64 CPU and xmm0 is caller-saved):
     * two instructions where two loads and two stores were, and the 4 bytes after wr_flags are
     * padding before the next function pointer ({@link #QP_EX_AFTER_FLAGS}), written with the
     * flags slot's high half, 0.
     */
    static List<Line> variant(int operationArgs, int dataArgs, boolean ud) {
        List<Line> l = new ArrayList<>();
        l.add(new Line("", name(operationArgs, dataArgs, ud) + ":"));
        l.add(op("53", "push %rbx"));                               // save rbx; aligns rsp to 16
        l.add(op("4889fb", "mov %rdi, %rbx"));                      // rbx = block for the whole routine
        l.add(QP_EX);                                               // wr_start(qp_ex)
        l.add(op("ff5308", "call *8(%rbx)"));
        l.add(QP_EX);                                               // qp_ex (rdi is caller-saved)
        l.add(op("0f104310", "movups 16(%rbx), %xmm0"));            // qp_ex->wr_id, ->wr_flags = the block's,
        l.add(op("0f1187a8000000", "movups %xmm0, 168(%rdi)"));     // and its 4 padding bytes = 0: 16 bytes
        l.addAll(OPERATION_ARGS.subList(0, operationArgs));
        l.add(op("ff5320", "call *32(%rbx)"));                      // builder(qp_ex, ...): rdi still qp_ex
        if (dataArgs > 0) {                                         // set_sge or set_inline_data
            l.add(QP_EX);
            l.addAll(DATA_ARGS.subList(0, dataArgs));
            l.add(op("ff5348", "call *72(%rbx)"));
        }
        if (ud) {                                                   // set_ud_addr(qp_ex, ah, qpn, qkey)
            l.add(QP_EX);
            l.add(op("488b7370", "mov 112(%rbx), %rsi"));
            l.add(op("488b5378", "mov 120(%rbx), %rdx"));
            l.add(op("488b8b80000000", "mov 128(%rbx), %rcx"));
            l.add(op("ff5368", "call *104(%rbx)"));
        }
        l.add(QP_EX);                                               // wr_complete(qp_ex) as a tail call:
        l.add(op("488b8388000000", "mov 136(%rbx), %rax"));         // its int return is the routine's,
        l.add(op("5b", "pop %rbx"));                                // with rbx and rsp as on entry
        l.add(op("ffe0", "jmp *%rax"));
        return List.copyOf(l);
    }

    private static String name(int operationArgs, int dataArgs, boolean ud) {
        return "post_" + operationArgs + "_" + dataArgs + (ud ? "_ud" : "_rc");
    }

    /** No data setter takes one argument after the queue pair: 0, 2 and 3 are the shapes. */
    private static final int[] DATA_SHAPES = {0, 2, 3};

    private static int index(int operationArgs, int dataArgs, boolean ud) {
        return (operationArgs * DATA_SHAPES.length + Math.max(0, dataArgs - 1)) * 2 + (ud ? 1 : 0);
    }

    /** The page's listing: the entry, then every variant in {@link #index} order. */
    static final List<Line> LISTING;
    /** Each variant's offset in the page, by {@link #index}. */
    private static final int[] OFFSETS = new int[index(MAX_OPERATION_ARGS, MAX_DATA_ARGS, true) + 1];

    static {
        List<Line> all = new ArrayList<>(ENTRY);
        int at = bytes(ENTRY).length;
        for (int n = 0; n <= MAX_OPERATION_ARGS; n++) {
            for (int d : DATA_SHAPES) {
                for (boolean ud : new boolean[] {false, true}) {
                    List<Line> v = variant(n, d, ud);
                    OFFSETS[index(n, d, ud)] = at;
                    at += bytes(v).length;
                    all.addAll(v);
                }
            }
        }
        LISTING = List.copyOf(all);
    }

    private static byte[] bytes(List<Line> lines) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Line l : lines) {
            out.writeBytes(HexFormat.of().parseHex(l.hex()));
        }
        return out.toByteArray();
    }

    /** The listing's bytes. */
    static byte[] code() {
        return bytes(LISTING);
    }

    /** Where in the page the variant for this shape begins. */
    static int offset(int operationArgs, int dataArgs, boolean ud) {
        return OFFSETS[index(operationArgs, dataArgs, ud)];
    }

    /** Why the routine is not used, or null when it is. */
    private static final String UNAVAILABLE;
    /** The routine's downcall, or null: a constant, so that a caller's test of it compiles away. */
    private static final MethodHandle POST;

    /** The page's address (the entry's), or 0 when the routine is not used. */
    private static final long PAGE;

    static {
        String[] why = new String[1];
        long[] page = new long[1];
        POST = routineOrNull(System.getProperty("jrdma.extendedPost.trampoline", ""), why, page);
        UNAVAILABLE = why[0];
        PAGE = page[0];
    }

    /** {@return whether {@link #post} may be called} */
    public static boolean available() {
        return POST != null;
    }

    /** {@return why {@link #post} is not available, or null when it is} */
    public static String unavailable() {
        return UNAVAILABLE;
    }

    /**
     * The address to store at {@link #ROUTINE_AT}: the routine for a request whose builder takes
     * {@code operationArgs} arguments after the queue pair (wr_send 0, wr_send_imm 1,
     * wr_rdma_write and wr_rdma_read 2, wr_rdma_write_imm and wr_atomic_fetch_add 3,
     * wr_atomic_cmp_swp 4), whose data setter takes {@code dataArgs} (none 0, set_inline_data 2,
     * set_sge 3), on a UD queue pair or not.
     *
     * @throws IllegalStateException when the routine is not {@link #available()}
     * @throws IllegalArgumentException for counts other than those
     */
    public static long routine(int operationArgs, int dataArgs, boolean ud) {
        if (PAGE == 0) {
            throw new IllegalStateException("the one-call extended post is not available: " + UNAVAILABLE);
        }
        if (operationArgs < 0 || operationArgs > MAX_OPERATION_ARGS || dataArgs < 0 || dataArgs > MAX_DATA_ARGS
                || dataArgs == 1) {
            throw new IllegalArgumentException("no routine for a builder of " + operationArgs + " and a data setter of "
                    + dataArgs + " arguments: 0-" + MAX_OPERATION_ARGS + " and 0, 2 or 3");
        }
        return PAGE + offset(operationArgs, dataArgs, ud);
    }

    /**
     * Posts the request the block at {@code block} describes, through the routine it names at
     * {@link #ROUTINE_AT}: start, wr_id and flags, builder, data setter, UD address, complete.
     *
     * @return {@code wr_complete}'s return: 0 or an errno value (then nothing was posted)
     * @throws IllegalStateException when the routine is not {@link #available()}
     */
    public static int post(long block) {
        MethodHandle h = POST;
        if (h == null) {
            throw new IllegalStateException("the one-call extended post is not available: " + UNAVAILABLE);
        }
        try {
            return (int) h.invokeExact(block);
        } catch (Throwable t) {
            throw ErrnoVerbs.rethrow(t);
        }
    }

    private static MethodHandle routineOrNull(String choice, String[] why, long[] pageAddress) {
        if (choice.equals("false")) {
            why[0] = "-Djrdma.extendedPost.trampoline=false";
            return null;
        }
        String arch = System.getProperty("os.arch", "");
        if (!System.getProperty("os.name", "").equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            why[0] = "x86-64 Linux only, not " + System.getProperty("os.name") + "/" + arch;
            return null;
        }
        if (ExtendedPostVerbs.WR_ID != QP_EX_WR_ID || ExtendedPostVerbs.WR_FLAGS != QP_EX_WR_FLAGS
                || ExtendedPostVerbs.WR_ATOMIC_CMP_SWP != QP_EX_AFTER_FLAGS) {
            why[0] = "struct ibv_qp_ex has wr_id at " + ExtendedPostVerbs.WR_ID + ", wr_flags at "
                    + ExtendedPostVerbs.WR_FLAGS + " and wr_atomic_cmp_swp at " + ExtendedPostVerbs.WR_ATOMIC_CMP_SWP
                    + ", the routine stores the 16 bytes from " + QP_EX_WR_ID + " with wr_flags at " + QP_EX_WR_FLAGS;
            return null;
        }
        try {
            MemorySegment page = ExecutablePage.of(code());
            pageAddress[0] = page.address();
            return Linker.nativeLinker().downcallHandle(page, FunctionDescriptor.of(JAVA_INT, JAVA_LONG),
                    Linker.Option.critical(false));
        } catch (IllegalStateException e) {
            why[0] = e.getMessage();
            return null;
        } catch (Throwable t) {
            why[0] = "setting up the routine failed: " + t;
            return null;
        }
    }
}
