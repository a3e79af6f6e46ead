// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * System.out and System.err split by thread, so that one JVM can run several programs at once and
 * still tell whose line is whose: a thread that {@link #captureInto captures} (and every thread it
 * starts afterwards: the capture is inherited) writes into its own {@link Buffers}; any other
 * thread writes to the streams the JVM had before {@link #install}. A thread that a program did
 * not start itself (a pool made before it ran) is not captured: its lines reach the JVM's own
 * streams, the agent's log; a long-lived thread that a program starts for the whole JVM keeps that
 * program's capture. Concurrent programs printing only from their own threads never mix.
 */
final class ThreadOutput {
    private static final InheritableThreadLocal<Buffers> CURRENT = new InheritableThreadLocal<>();
    private static boolean installed;

    private ThreadOutput() {}

    /** One program's stdout and stderr. */
    static final class Buffers {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteArrayOutputStream err = new ByteArrayOutputStream();

        /** Streams straight into these buffers, for programs that take their streams as arguments. */
        PrintStream outStream() {
            return new PrintStream(out, true, StandardCharsets.UTF_8);
        }

        PrintStream errStream() {
            return new PrintStream(err, true, StandardCharsets.UTF_8);
        }

        String out() {
            return out.toString(StandardCharsets.UTF_8);   // ByteArrayOutputStream is synchronized
        }

        String err() {
            return err.toString(StandardCharsets.UTF_8);
        }
    }

    /** Replaces System.out and System.err by the splitting streams, once per JVM. */
    static synchronized void install() {
        if (!installed) {
            System.setOut(new PrintStream(new Split(System.out, false), true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(new Split(System.err, true), true, StandardCharsets.UTF_8));
            installed = true;
        }
    }

    /** From now on, this thread's and its new threads' System.out and System.err go into {@code buffers}. */
    static void captureInto(Buffers buffers) {
        CURRENT.set(buffers);
    }

    /**
     * Sends each write to the writing thread's buffer. PrintStream encodes and flushes within the
     * caller's print call, so the bytes arrive here on the thread that printed them.
     */
    private static final class Split extends OutputStream {
        private final PrintStream fallback;
        private final boolean err;

        Split(PrintStream fallback, boolean err) {
            this.fallback = fallback;
            this.err = err;
        }

        private OutputStream target() {
            Buffers b = CURRENT.get();
            return b == null ? fallback : err ? b.err : b.out;
        }

        @Override
        public void write(int b) throws IOException {
            target().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target().write(b, off, len);
        }

        @Override
        public void flush() {
            fallback.flush();
        }
    }
}
