// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.Libc;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.MemorySegment;

/**
 * A verb failed. The message names the verb, the object it was called on, the errno and its
 * {@code strerror} text, e.g. {@code ibv_alloc_pd(context rxe0) failed: errno 12 (Cannot
 * allocate memory)}, followed by a hint where the cause is known to be environmental.
 * {@link #verb()} says which verb, {@link #error()} and {@link #is(Errno)} the errno by name.
 *
 * <p>Misuse detected in Java before native code is reached (use after close, a heap segment,
 * an out-of-range argument) is reported with {@link IllegalStateException} or
 * {@link IllegalArgumentException} instead.
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The verb that failed. */
    private final Verb verb;
    /** The errno value, 0 when there is none. */
    private final int errno;
    /** What the verb was called on. */
    private final String object;

    RdmaException(Verb verb, String object, int errno, String detail) {
        this(message(verb, object, errno, detail), verb, object, errno);
    }

    /** For subclasses whose message is not errno-shaped (failed completions). */
    RdmaException(String message, Verb verb, String object, int errno) {
        super(message);
        this.verb = verb;
        this.object = object;
        this.errno = errno;
    }

    /** The exception for {@code errno}: an {@link OperationNotSupportedException} for EOPNOTSUPP. */
    static RdmaException of(Verb verb, Object object, int errno) {
        return of(verb, object, errno, null);
    }

    /** As {@link #of(Verb, Object, int)}, with {@code detail} appended to the message. */
    static RdmaException of(Verb verb, Object object, int errno, String detail) {
        String name = String.valueOf(object);
        return errno == Errno.EOPNOTSUPP.value()
                ? new OperationNotSupportedException(verb, name, detail)
                : new RdmaException(verb, name, errno, detail);
    }

    /** Throws the exception for {@code rc}, the return code of {@code verb} on {@code object}, unless it is 0. */
    static void check(Verb verb, Object object, int rc) {
        if (rc != 0) {
            throw of(verb, object, rc);
        }
    }

    /**
     * Throws the exception for a create verb on {@code object} that returned NULL, with the errno
     * it left in {@code errno}; returns what it created otherwise.
     */
    static MemorySegment checkCreated(Verb verb, Object object, MemorySegment errno, MemorySegment created) {
        if (created.address() == 0) {
            throw of(verb, object, dev.jrdma.bindings.shim.Errno.get(errno));
        }
        return created;
    }

    /**
     * As {@link #check(Verb, Object, int)} for a verb that {@code context}'s device may not
     * implement: EOPNOTSUPP then names the device and the {@code capability} it lacks.
     */
    static void check(Verb verb, Object object, int rc, Context context, String capability) {
        if (rc != 0) {
            throw of(verb, object, rc, Unsupported.detail(context, rc, capability));
        }
    }

    /**
     * As {@link #checkCreated(Verb, Object, MemorySegment, MemorySegment)} for a verb that
     * {@code context}'s device may not implement: EOPNOTSUPP then names the device and the
     * {@code capability} it lacks.
     */
    static MemorySegment checkCreated(Verb verb, Object object, MemorySegment errno, MemorySegment created,
                                      Context context, String capability) {
        if (created.address() == 0) {
            int e = dev.jrdma.bindings.shim.Errno.get(errno);
            throw of(verb, object, e, Unsupported.detail(context, e, capability));
        }
        return created;
    }

    private static String message(Verb verb, String object, int errno, String detail) {
        String text = verb + "(" + object + ") failed: errno " + errno + " (" + Libc.strerror(errno) + ")";
        return detail == null || detail.isEmpty() ? text : text + ": " + detail;
    }

    /**
     * {@return the verb that failed, e.g. {@link Verb#IBV_REG_MR}; {@link Verb#WAIT} for a
     * timeout} Its {@code toString()} is the C name the message shows.
     */
    public Verb verb() {
        return verb;
    }

    /**
     * {@return the errno value the verb reported, or 0 when the failure has none (a failed
     * completion, a timeout)} {@link #error()} gives it a name.
     */
    public int errno() {
        return errno;
    }

    /**
     * {@return the errno the verb reported, by name, e.g. {@link Errno#ENOMEM}; empty when the
     * failure has none (a failed completion, a timeout) or {@link Errno} does not list it}
     */
    public java.util.Optional<Errno> error() {
        return Errno.of(errno);
    }

    /**
     * {@return whether the verb failed with {@code error}}, for handlers that react to one cause:
     * {@code catch (RdmaException e) { if (e.is(Errno.ETIMEDOUT)) retry(); else throw e; }}
     *
     * @param error the errno to test for
     */
    public boolean is(Errno error) {
        return errno != 0 && errno == error.value();
    }

    /** {@return a description of the object the verb was called on, e.g. {@code context rxe0}} */
    public String object() {
        return object;
    }
}
