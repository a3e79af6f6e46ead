// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * The guard around a prepared request's post, one for {@link PreparedSend},
 * {@link PreparedReceive} and {@link PreparedExtendedSend}: a request confined to its thread
 * ({@link Confinement}) tests "mine and open" and posts with no guard word; a shared one takes
 * the solo word ({@link NativeResource#enterSolo()}, one compare-and-set), or the counted guard
 * when another thread is inside or the request is closed.
 *
 * <p>Why a static method taking the post as a constant: the three requests extend different
 * bases ({@link PreparedWork} for the two whose chain lives in native memory, {@link NativeResource}
 * for the extended send), so the guard cannot be a common superclass's method. Each request
 * passes a {@code static final} method reference; C2 inlines {@link #post} into the request's
 * {@code post()} and binds the reference's call statically (the receiver is a constant), so the
 * compiled post is the same as the guard written out in each class (bench/stub-provider --paired).
 */
final class PostGuard {
    private PostGuard() {}

    /** A request's post between the guard's entry and exit: the state checks and the provider's call. */
    @FunctionalInterface
    interface Inside<R extends NativeResource> {
        int post(R request);
    }

    /**
     * Posts {@code request} through {@code inside} under the guard its kind needs.
     *
     * @return what {@code inside} returned (the provider's return code)
     * @throws WrongThreadException when the request is confined to another thread
     * @throws IllegalStateException when it is closed
     */
    static <R extends NativeResource> int post(R request, Inside<R> inside) {
        // Confined to this thread and open (openOwner is null once closed): no other thread posts
        // or closes the request or, while this thread lives, anything it depends on, so nothing
        // can be destroyed under the call.
        if (request.openOwner == Thread.currentThread()) {
            return inside.post(request);
        }
        if (request.confinedTo != null) {
            throw refusal(request, "post");
        }
        if (!request.enterSolo()) {
            return counted(request, inside);
        }
        try {
            return inside.post(request);
        } finally {
            request.exitSolo();
        }
    }

    // Out of line: another thread is posting this request, or it is closed (enter() throws).
    private static <R extends NativeResource> int counted(R request, Inside<R> inside) {
        request.enter();
        try {
            return inside.post(request);
        } finally {
            request.exit();
        }
    }

    /**
     * The call of a request confined to another thread, or of a closed confined one: out of line,
     * so that a confined post compiles to two compares before the provider's call.
     */
    static RuntimeException refusal(NativeResource request, String call) {
        if (request.confinedTo != Thread.currentThread()) {
            return Confinement.refusedCall(request, call);
        }
        return new IllegalStateException(request + " is closed");
    }

    /** {@return whether {@code thread} may call and close {@code request}: any thread unless it is confined} */
    static boolean isAccessibleBy(NativeResource request, Thread thread) {
        Thread owner = request.confinedTo;
        return owner == null || owner == thread;
    }
}
