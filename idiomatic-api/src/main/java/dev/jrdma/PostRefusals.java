// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * The exceptions of a refused or failed post, built out of line: their string concatenation,
 * inlined into {@link QueuePair}'s post methods, would make those too big for the JIT to inline
 * them into a caller's polling loop.
 */
final class PostRefusals {
    /*
     * The IB spec lets a QP in ERR accept work requests and flush them, but rxe on Linux 6.1
     * accepts a receive in ERR and never completes it: a post there would be lost silently. After
     * toError() (the only way a QueuePair knows the QP is in ERR) posts are refused instead. A QP
     * the device moved to ERR after a failed completion still accepts posts, as the provider does.
     */
    private static final String IN_ERR = "it is in ERR, where work requests are only flushed"
            + " (reset() and connect again to reuse it)";

    private PostRefusals() {}

    static IllegalStateException send(QueuePair qp, SendRequest request, QueuePairState state) {
        return send(qp, "work request wr_id " + request.wrId(), state);
    }

    /** As above for a request named {@code what} (a prepared one). */
    static IllegalStateException send(QueuePair qp, String what, QueuePairState state) {
        return new IllegalStateException("cannot post " + what + " to " + qp + ": "
                + (state == QueuePairState.ERR ? IN_ERR : "it is in " + state + ", sends need RTS (connect it first)"));
    }

    static IllegalStateException receive(QueuePair qp, SharedReceiveQueue srq, ReceiveRequest request,
                                         QueuePairState state) {
        if (srq != null) {
            return new IllegalStateException(qp + " takes its receives from " + srq + ": post them there");
        }
        return receive(qp, "receive request wr_id " + request.wrId(), state);
    }

    /** As above for a request named {@code what} (a prepared one, never for a queue pair on an SRQ). */
    static IllegalStateException receive(QueuePair qp, String what, QueuePairState state) {
        return new IllegalStateException("cannot post " + what + " to " + qp + ": "
                + (state == QueuePairState.ERR ? IN_ERR : "it is in RESET, receives need INIT or later"));
    }

    /** The provider refused {@code which} with {@code rc}; the queue pair's state says why, when it can. */
    static RdmaException failure(QueuePair qp, Verb verb, int rc, String which) {
        String hint = switch (qp.state()) {
            case RESET -> "; the queue pair is in RESET: connect it first";
            case INIT -> verb == Verb.IBV_POST_SEND ? "; the queue pair is in INIT: sends need RTS" : "";
            case RTR -> verb == Verb.IBV_POST_SEND ? "; the queue pair is in RTR: sends need RTS" : "";
            case ERR -> "; the queue pair is in ERR";
            default -> "";
        };
        return RdmaException.of(verb, qp, rc, which + " was not posted" + hint);
    }
}
