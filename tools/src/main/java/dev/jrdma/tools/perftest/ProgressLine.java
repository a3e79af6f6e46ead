// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import dev.jrdma.bindings.shim.Posix;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The progress line of a -D (duration) run: one line on stderr, rewritten in place with a
 * carriage return, e.g. {@code "send-bw: 3.2/10 s, 1234567 iterations"}, and erased at the end so
 * the report that follows on stdout is undisturbed. perftest prints nothing during a duration run
 * (users cannot tell a slow run from a hung one); jrdma shows the line only when stderr is a
 * terminal, so logs and pipes never get carriage-return noise.
 *
 * <p>Not thread-safe: the thread that runs the test calls {@link #update}.
 */
public final class ProgressLine {
    /** Redraw at most this often: a terminal does not need more, and printing costs the run. */
    static final long MIN_INTERVAL_NANOS = 250_000_000L;

    private final PrintWriter err;
    private final String test;
    private final int durationSeconds;
    private final boolean active;
    private long lastDrawNanos = Long.MIN_VALUE;
    private int lastWidth;

    /**
     * @param err             stderr
     * @param test            the subcommand, e.g. "send-bw"
     * @param durationSeconds -D
     */
    public ProgressLine(PrintWriter err, String test, int durationSeconds) {
        this(err, test, durationSeconds, true);
    }

    private ProgressLine(PrintWriter err, String test, int durationSeconds, boolean active) {
        this.err = err;
        this.test = test;
        this.durationSeconds = durationSeconds;
        this.active = active;
    }

    /**
     * The progress line of a run: drawing when {@link #enabled} says so, otherwise one whose
     * {@link #update} and {@link #finish} print nothing, so the run loop needs no conditionals.
     */
    public static ProgressLine forRun(PerftestSettings settings, PrintWriter err, boolean stderrIsTerminal) {
        return new ProgressLine(err, settings.kind().command(), settings.durationSeconds(),
                enabled(settings.durationSeconds(), stderrIsTerminal));
    }

    /** Whether this line draws at all. */
    public boolean active() {
        return active;
    }

    /**
     * Whether to show the line: a duration run with stderr on a terminal.
     *
     * @param durationSeconds  -D, 0 for an iteration run
     * @param stderrIsTerminal from {@link #stderrIsTerminal()}
     */
    public static boolean enabled(int durationSeconds, boolean stderrIsTerminal) {
        return durationSeconds > 0 && stderrIsTerminal;
    }

    /** The text of the line (without the carriage return). */
    public static String format(String test, long elapsedNanos, int durationSeconds, long iterations) {
        double elapsed = Math.max(0, elapsedNanos) / 1e9;
        return String.format(Locale.ROOT, "%s: %.1f/%d s, %d iterations", test, Math.min(elapsed, durationSeconds),
                durationSeconds, iterations);
    }

    /**
     * Redraws the line if {@link #MIN_INTERVAL_NANOS} passed since the last redraw.
     *
     * @param nowNanos     System.nanoTime() (a parameter so tests control time)
     * @param elapsedNanos time since the run started
     * @param iterations   iterations completed so far
     * @return true when the line was redrawn
     */
    public boolean update(long nowNanos, long elapsedNanos, long iterations) {
        if (!active) {
            return false;
        }
        if (lastDrawNanos != Long.MIN_VALUE && nowNanos - lastDrawNanos < MIN_INTERVAL_NANOS) {
            return false;
        }
        lastDrawNanos = nowNanos;
        String text = format(test, elapsedNanos, durationSeconds, iterations);
        // Pad over a longer previous text; a terminal does not clear on \r.
        int pad = Math.max(0, lastWidth - text.length());
        err.print("\r" + text + " ".repeat(pad));
        err.flush();
        lastWidth = text.length();
        return true;
    }

    /** Erases the line (before the report is printed). */
    public void finish() {
        if (lastWidth > 0) {
            err.print("\r" + " ".repeat(lastWidth) + "\r");
            err.flush();
            lastWidth = 0;
        }
    }

    /**
     * Whether stderr (fd 2) is a terminal: libc's isatty(2) through the FFM API (exact; Java has no
     * stderr-specific check). Without native access (the jrdma launcher enables it) it falls back to {@code System.console()},
     * which describes stdin/stdout, and answers false when there is none.
     */
    public static boolean stderrIsTerminal() {
        try {
            if (!Posix.class.getModule().isNativeAccessEnabled()) {
                throw new IllegalCallerException("no native access");   // avoid the JDK's warning
            }
            return Posix.isatty(2);
        } catch (RuntimeException | LinkageError e) {   // no native access, no isatty: be conservative
            java.io.Console c = System.console();
            return c != null && c.isTerminal();
        }
    }
}
