// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.time.Duration;
import java.util.Objects;

/**
 * A wait ended because its timeout passed: no completion ({@link CompletionQueue#take}), no
 * completion event ({@link CompletionChannel#await}), no rdma_cm event ({@link dev.jrdma.cm.CmId}). A
 * timeout on the TCP side ({@link EndpointExchange}, {@link ControlConnection}) is a socket's
 * failure and so an {@link java.io.IOException}: a {@link java.net.SocketTimeoutException}. Catch this
 * type to tell a slow or absent peer from misuse, which is an {@link IllegalStateException}.
 * The message names what was awaited, on what, and the timeout in plain units, e.g.
 * {@code no completion on completion queue handle 3 on rxe0 within 30 s}.
 */
public final class RdmaTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The timeout that passed. */
    private final transient Duration timeout;

    /**
     * For applications and tools that bound their own waits with the same type.
     *
     * @param what    what did not happen, e.g. {@code "no completion"}
     * @param object  what was waited on, e.g. the completion queue
     * @param timeout the timeout that passed
     */
    public RdmaTimeoutException(String what, Object object, Duration timeout) {
        this(what, object, timeout, null, null);
    }

    /**
     * As {@link #RdmaTimeoutException(String, Object, Duration)}, with the exception that ended
     * the wait, e.g. a {@link java.net.SocketTimeoutException}.
     *
     * @param what    what did not happen
     * @param object  what was waited on
     * @param timeout the timeout that passed
     * @param cause   the underlying exception, or null
     */
    public RdmaTimeoutException(String what, Object object, Duration timeout, Throwable cause) {
        this(what, object, timeout, null, cause);
    }

    /**
     * As {@link #RdmaTimeoutException(String, Object, Duration)}, with a hint at the likely
     * cause appended to the message after a colon.
     *
     * @param what    what did not happen
     * @param object  what was waited on
     * @param timeout the timeout that passed
     * @param hint    e.g. {@code "is the server running?"}
     */
    public RdmaTimeoutException(String what, Object object, Duration timeout, String hint) {
        this(what, object, timeout, hint, null);
    }

    /**
     * For a tool whose messages follow conventions of their own, e.g. a protocol step's name
     * first: the message as given, which should say what was awaited and the timeout, in plain
     * units ({@link #plain}).
     *
     * @param timeout the timeout that passed
     * @param message the whole message
     * @param cause   the underlying exception, or null
     */
    public RdmaTimeoutException(Duration timeout, String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), Verb.WAIT, "", 0);
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (cause != null) {
            initCause(cause);
        }
    }

    private RdmaTimeoutException(String what, Object object, Duration timeout, String hint, Throwable cause) {
        super(what + " on " + object + " within " + plain(Objects.requireNonNull(timeout, "timeout"))
                + (hint == null || hint.isEmpty() ? "" : ": " + hint), Verb.WAIT, String.valueOf(object), 0);
        this.timeout = timeout;
        if (cause != null) {
            initCause(cause);
        }
    }

    /** {@return the timeout that passed} */
    public Duration timeout() {
        return timeout;
    }

    /**
     * A duration the way people say it: {@code 30 s}, {@code 1.5 s}, {@code 250 ms},
     * {@code 40 us}, {@code 2 min}.
     *
     * @param d a duration
     * @return the duration in the largest unit that keeps it readable
     */
    public static String plain(Duration d) {
        long nanos;
        try {
            nanos = d.toNanos();
        } catch (ArithmeticException e) {
            return d.toSeconds() + " s";
        }
        if (nanos >= 120_000_000_000L && nanos % 60_000_000_000L == 0) {
            return nanos / 60_000_000_000L + " min";
        }
        if (nanos >= 1_000_000_000L) {
            return trim(nanos / 1e9) + " s";
        }
        if (nanos >= 1_000_000L) {
            return trim(nanos / 1e6) + " ms";
        }
        if (nanos >= 1_000L) {
            return trim(nanos / 1e3) + " us";
        }
        return nanos + " ns";
    }

    /** Up to 3 decimals, without trailing zeros. */
    private static String trim(double value) {
        String s = String.format(java.util.Locale.ROOT, "%.3f", value);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
