// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.HexFormat;
import java.util.List;

/**
 * One extended post of one work request in ONE downcall: {@code ibv_wr_start}, {@code wr_id} and
 * {@code wr_flags}, the operation's builder, its data setter ({@code ibv_wr_set_sge} or
 * {@code ibv_wr_set_inline_data}), {@code ibv_wr_set_ud_addr} on UD, {@code ibv_wr_complete},
 * called in that order by 34 instructions of x86-64 machine code, as the inlines of
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
 * <p>One routine for every operation: in the SysV x86-64 ABI a callee ignores integer argument
 * registers past its own parameters, so each call loads four argument slots ({@code rsi, rdx,
 * rcx, r8} for the builder, three for the setters) whatever the function takes:
 * {@code wr_send(qp)}, {@code wr_rdma_write(qp, rkey, raddr)},
 * {@code wr_atomic_cmp_swp(qp, rkey, raddr, compare, swap)}, {@code wr_set_sge(qp, lkey, addr,
 * length)}, {@code wr_set_inline_data(qp, addr, length)}, {@code wr_set_ud_addr(qp, ah, qpn, qkey)}.
 * A 32-bit parameter in a 64-bit slot is read from the register's low half, as the ABI says.
 * A setter slot of 0 is skipped. Nothing between {@code wr_start} and {@code wr_complete} can
 * fail, so there is no {@code wr_abort} path.
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
    /** The {@code ibv_send_flags} stored into {@code qp_ex->wr_flags} (the slot's low 32 bits). */
    public static final long WR_FLAGS_AT = 24;
    /** The operation's builder ({@code wr_send}, {@code wr_rdma_write}, ...). */
    public static final long OPERATION_AT = 32;
    /** The builder's arguments after the queue pair, in order (unused slots are ignored). */
    public static final long OPERATION_ARGS_AT = 40;
    /** {@code wr_set_sge} or {@code wr_set_inline_data}, or 0 for none. */
    public static final long DATA_AT = 72;
    /** The data setter's arguments after the queue pair: (lkey, addr, length) or (addr, length). */
    public static final long DATA_ARGS_AT = 80;
    /** {@code wr_set_ud_addr}, or 0 (not UD). */
    public static final long UD_AT = 104;
    /** Its arguments after the queue pair: (ah, remote QPN, remote Q_Key). */
    public static final long UD_ARGS_AT = 112;
    /** {@code wr_complete}. */
    public static final long COMPLETE_AT = 136;
    /** The block's size in bytes (align it to 8). */
    public static final long BLOCK_SIZE = 144;

    /** Where the listing stores wr_id and wr_flags in {@code struct ibv_qp_ex} (checked against the generated layout). */
    static final long QP_EX_WR_ID = 168;
    static final long QP_EX_WR_FLAGS = 176;

    /** One instruction: its bytes (hex), its AT&T text for {@code as}, a label line has no bytes. */
    record Line(String hex, String asm) {}

    private static Line op(String hex, String asm) {
        return new Line(hex, asm);
    }

    /**
     * The routine: {@code int post(struct post_block *b)}. On entry rsp is 8 mod 16 (the
     * return address); one push makes it 16-aligned for every call below, as the ABI wants at a
     * call. rbx is callee-saved, so it keeps the block across the provider's calls and is
     * restored before the tail call. The queue pair is reloaded from the block before each
     * call (one load from a line already in L1) rather than kept in a second saved register,
     * which would need a second push and an 8-byte pad.
     */
    static final List<Line> LISTING = List.of(
            op("53", "push %rbx"),                              // save rbx; aligns rsp to 16
            op("4889fb", "mov %rdi, %rbx"),                     // rbx = block for the whole routine
            op("488b3b", "mov (%rbx), %rdi"),                   // wr_start(qp_ex)
            op("ff5308", "call *8(%rbx)"),
            op("488b3b", "mov (%rbx), %rdi"),                   // qp_ex (rdi is caller-saved)
            op("488b4310", "mov 16(%rbx), %rax"),               // qp_ex->wr_id = block wr_id
            op("488987a8000000", "mov %rax, 168(%rdi)"),
            op("8b4318", "mov 24(%rbx), %eax"),                 // qp_ex->wr_flags = block flags (32 bits)
            op("8987b0000000", "mov %eax, 176(%rdi)"),
            op("488b7328", "mov 40(%rbx), %rsi"),               // the builder's four argument slots
            op("488b5330", "mov 48(%rbx), %rdx"),
            op("488b4b38", "mov 56(%rbx), %rcx"),
            op("4c8b4340", "mov 64(%rbx), %r8"),
            op("ff5320", "call *32(%rbx)"),                     // builder(qp_ex, ...): rdi still qp_ex
            op("488b4348", "mov 72(%rbx), %rax"),               // data setter, if any
            op("4885c0", "test %rax, %rax"),
            op("7411", "jz 1f"),
            op("488b3b", "mov (%rbx), %rdi"),
            op("488b7350", "mov 80(%rbx), %rsi"),
            op("488b5358", "mov 88(%rbx), %rdx"),
            op("488b4b60", "mov 96(%rbx), %rcx"),
            op("ffd0", "call *%rax"),
            op("", "1:"),
            op("488b4368", "mov 104(%rbx), %rax"),              // set_ud_addr, if UD
            op("4885c0", "test %rax, %rax"),
            op("7414", "jz 2f"),
            op("488b3b", "mov (%rbx), %rdi"),
            op("488b7370", "mov 112(%rbx), %rsi"),
            op("488b5378", "mov 120(%rbx), %rdx"),
            op("488b8b80000000", "mov 128(%rbx), %rcx"),
            op("ffd0", "call *%rax"),
            op("", "2:"),
            op("488b3b", "mov (%rbx), %rdi"),                   // wr_complete(qp_ex) as a tail call:
            op("488b8388000000", "mov 136(%rbx), %rax"),        // its int return is the routine's,
            op("5b", "pop %rbx"),                               // with rbx and rsp as on entry
            op("ffe0", "jmp *%rax"));

    /** The listing's bytes. */
    static byte[] code() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Line l : LISTING) {
            out.writeBytes(HexFormat.of().parseHex(l.hex()));
        }
        return out.toByteArray();
    }


    /** Why the routine is not used, or null when it is. */
    private static final String UNAVAILABLE;
    /** The routine's downcall, or null: a constant, so that a caller's test of it compiles away. */
    private static final MethodHandle POST;

    static {
        String[] why = new String[1];
        POST = routineOrNull(System.getProperty("jrdma.extendedPost.trampoline", ""), why);
        UNAVAILABLE = why[0];
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
     * Posts the request the block at {@code block} describes: start, wr_id and flags, builder,
     * data setter, UD address, complete.
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

    private static MethodHandle routineOrNull(String choice, String[] why) {
        if (choice.equals("false")) {
            why[0] = "-Djrdma.extendedPost.trampoline=false";
            return null;
        }
        String arch = System.getProperty("os.arch", "");
        if (!System.getProperty("os.name", "").equals("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            why[0] = "x86-64 Linux only, not " + System.getProperty("os.name") + "/" + arch;
            return null;
        }
        if (ExtendedPostVerbs.WR_ID != QP_EX_WR_ID || ExtendedPostVerbs.WR_FLAGS != QP_EX_WR_FLAGS) {
            why[0] = "struct ibv_qp_ex has wr_id at " + ExtendedPostVerbs.WR_ID + " and wr_flags at "
                    + ExtendedPostVerbs.WR_FLAGS + ", the routine stores them at " + QP_EX_WR_ID + " and "
                    + QP_EX_WR_FLAGS;
            return null;
        }
        try {
            MemorySegment page = ExecutablePage.of(code());
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
