// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.Verb;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * --data_validation: the bytes a write-bw or read-bw run moves are checked where they land.
 * Each side fills the slots its QPs' bytes come from (write: its send slots; read: the slots it
 * announces to the peer) with a pattern of the QP and the byte's offset, never 0, and leaves the
 * landing slots zeroed; after the run the side where they land (the write-bw server, the
 * read-bw client, both with -b) compares every byte. A byte the transfer lost, misplaced or
 * changed fails the run, naming the QP, the offset, the expected and the found value.
 *
 * <p>perftest 6.2x validates during the run (a validator thread watching chunk markers that the
 * sender sets with RDMA atomics in a ring of chunks); jrdma checks the final contents, which
 * needs no exchange on the wire beyond the test's own, so jrdma peers agree without a protocol
 * of their own. Not for 6.06 peers (they have no --data_validation).
 *
 * <p>--data_validation_debug: the check prints, on stderr, what it compares per QP and, on a
 * wrong byte, the bytes around it as expected and as found (perftest 26.04's debug output is of
 * its chunk ring, which jrdma does not have).
 */
final class DataValidation {
    private DataValidation() {
    }

    /** The pattern byte of QP {@code qp} at {@code offset}: never 0, so a byte never written shows. */
    static byte expected(int qp, long offset) {
        return (byte) (1 + (offset * 31 + qp * 17L) % 251);
    }

    /** Fills each QP's source slot: {@code size} bytes of the pattern (before the QPs exist: -q says how many). */
    static void fill(Side side, long size) {
        MemorySegment buffer = side.buffer.mr().segment();
        int n = side.s.qps();
        for (int q = 0; q < n; q++) {
            long base = source(side, q, n);
            for (long j = 0; j < size; j++) {
                buffer.set(ValueLayout.JAVA_BYTE, base + j, expected(q, j));
            }
        }
    }

    /** The prefix of every --data_validation_debug line. */
    static final String DEBUG = "[validation] ";

    /**
     * Checks each QP's landing slot after a run.
     *
     * @param debug where --data_validation_debug's lines go, or null without it
     * @return the bytes checked
     * @throws IllegalStateException naming the first wrong byte
     */
    static long check(Side side, long size, PrintWriter debug) {
        MemorySegment buffer = side.buffer.mr().segment();
        int n = side.s.qps();
        for (int q = 0; q < n; q++) {
            long base = landing(side, q, n);
            long at = firstMismatch(buffer, base, size, q);
            if (debug != null) {
                debug.print(DEBUG + describe(q, base, size, at) + "\n");
                if (at >= 0) {
                    debug.print(DEBUG + window(buffer, base, size, q, at, true) + "\n");
                    debug.print(DEBUG + window(buffer, base, size, q, at, false) + "\n");
                }
                debug.flush();
            }
            if (at >= 0) {
                byte got = buffer.get(ValueLayout.JAVA_BYTE, base + at);
                throw new IllegalStateException(String.format("--data_validation: FAILED: QP %d, byte %d of %d: expected 0x%02x,"
                        + " found 0x%02x", q, at, size, expected(q, at) & 0xff, got & 0xff));
            }
        }
        return size * n;
    }

    /** {@return one QP's debug line: where its bytes landed in the buffer, the pattern, the outcome} */
    static String describe(int qp, long base, long size, long mismatch) {
        return String.format("QP %d: bytes [%d, %d) of the buffer, pattern 1 + (31 * offset + 17 * %d) %% 251: %s", qp,
                base, base + size, qp, mismatch < 0 ? size + " bytes checked, all as expected"
                        : "wrong at offset " + mismatch + " after " + mismatch + " good bytes");
    }

    /** {@return the 16 bytes around {@code at} (within the message), as expected or as found, in hex} */
    static String window(MemorySegment buffer, long base, long size, int qp, long at, boolean expected) {
        long from = Math.max(0, Math.min(at - 8, size - 16));
        long to = Math.min(size, from + 16);
        StringBuilder line = new StringBuilder(String.format("%-8s offset %d:", expected ? "expected" : "found", from));
        for (long j = from; j < to; j++) {
            byte b = expected ? expected(qp, j) : buffer.get(ValueLayout.JAVA_BYTE, base + j);
            line.append(String.format(" %02x", b & 0xff));
        }
        return line.toString();
    }

    /** {@return the offset of the first byte of {@code [base, base + size)} that is not QP {@code qp}'s pattern, or -1} */
    static long firstMismatch(MemorySegment buffer, long base, long size, int qp) {
        for (long j = 0; j < size; j++) {
            if (buffer.get(ValueLayout.JAVA_BYTE, base + j) != expected(qp, j)) {
                return j;
            }
        }
        return -1;
    }

    private static long source(Side side, int q, int n) {
        return (side.verb == Verb.READ ? n + q : q) * side.buffer.slot();
    }

    private static long landing(Side side, int q, int n) {
        return (side.verb == Verb.READ ? q : n + q) * side.buffer.slot();
    }
}
