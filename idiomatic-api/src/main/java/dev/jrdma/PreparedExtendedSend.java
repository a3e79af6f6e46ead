// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtendedPostTrampoline;
import java.lang.foreign.MemorySegment;

/**
 * One send work request checked once and then posted through the extended post API
 * ({@code ibv_wr_*}) as often as needed: the {@link ExtendedSendQueue} counterpart of
 * {@link PreparedSend}. Each {@link #post()} is one batch of one request - {@code ibv_wr_start},
 * the operation ({@code ibv_wr_send}, {@code ibv_wr_rdma_write}, ...), {@code ibv_wr_set_sge}
 * or {@code ibv_wr_set_inline_data}, {@code ibv_wr_set_ud_addr} on UD, {@code ibv_wr_complete} -
 * with no check between them.
 *
 * <p>Why: an {@link ExtendedSendQueue} batch checks the order of its calls, the operation, the
 * region and the remote offset at every call, because any of them may change between batches.
 * A loop that posts the same request (perftest's, the CLI's) pays those checks on every post
 * for nothing. {@link #of(ExtendedSendQueue, SendRequest)} runs them once, as
 * {@link SendRequest} and the batch would: the operation allowed for the queue pair's type and
 * among those it was created for ({@link QueuePair.Builder#extendedPost(SendOp...)}), the
 * provider's builders present, regions open, in the queue pair's protection domain and in
 * bounds, remote memory set and large enough, inline data within the queue pair's limit, a UD
 * destination in the same protection domain. A post then tests this object's open/close guard
 * and the queue pair's state word, and makes the downcalls.
 *
 * <p>Supported: SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ and the two
 * atomics, with zero or one SGE (inline or not), one request (no chain). Between posts what
 * perftest's loops change can change, each checked when it is set: the wr_id, the signalled
 * flag, the immediate data, the length down from the length prepared, and the offset into the
 * remote memory prepared.
 *
 * <p>Ordering: between {@code wr_start} and {@code wr_complete} the provider holds the send
 * queue's lock. A post claims the queue pair's send queue first (one compare-and-set, shared
 * with {@link ExtendedSendQueue#start()}): a batch open on the same queue pair in the same
 * thread makes the post throw {@link IllegalStateException} instead of spinning forever in
 * {@code wr_start}, and one open in another thread makes it wait in Java until it ends. In the
 * thread that owns the send queue ({@link ExtendedSendQueue#ownSendQueue()}) the claim, the
 * queue pair's refusal word and, for memory a region owns, the caller-memory test are one
 * compare of one field ({@code SendQueueClaim.isReady}), and other threads' posts throw
 * {@link WrongThreadException}.
 *
 * <p>On x86-64 Linux the post is one downcall, as the inlines of {@code verbs.h} are one C
 * call site: a routine of machine code ({@code ExtendedPostTrampoline} in the bindings) calls
 * the provider's functions in order with the arguments this object keeps in a block of native
 * memory, which the setters below update. Elsewhere, or with
 * {@code -Djrdma.extendedPost.trampoline=false}, each function is a downcall of its own, and
 * an exception between {@code wr_start} and {@code wr_complete} aborts ({@code ibv_wr_abort}).
 * See research/notes/2026-11-28-extended-post-trampoline.md.
 *
 * <p>Closing the queue pair, the region or the address handle closes this object first (waiting
 * for a post running in another thread); its next post throws {@link IllegalStateException}.
 * A request that one thread prepares, posts and closes can be made with
 * {@link #ofConfined(ExtendedSendQueue, SendRequest)}: its posts take no guard word, and other
 * threads can neither post it nor close it or what it depends on while that thread runs
 * ({@link WrongThreadException}); with the send queue owned by that thread too, a post makes
 * no atomic instruction at all.
 * Threads: post from one thread at a time, as for the queue pair; a post from a second thread
 * at the same moment is safe (it takes the counted guard, then waits for the send queue). Do
 * not post to the same queue pair with {@code ibv_post_send} ({@link QueuePair#post(SendRequest)},
 * {@link PreparedSend}) from another thread at the same time: the provider takes the same lock
 * there, inside a critical downcall that the claim does not cover. Posting allocates nothing.
 *
 * <pre>{@code
 * ExtendedSendQueue sq = ExtendedSendQueue.of(qp);
 * try (var write = PreparedExtendedSend.of(sq, new SendRequest().opcode(SendOpcode.RDMA_WRITE)
 *         .sge(mr, 0, 64).remote(peer).signaled(true))) {
 *     for (int i = 0; i < n; i++) {
 *         write.wrId(i).post();
 *         cq.take(wc, timeout);
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #toString()}: {@code prepared extended send (<opcode>) on <queue pair>}.
 */
public final class PreparedExtendedSend extends NativeResource {
    private final QueuePair qp;
    private final SendQueueClaim claim;
    /**
     * The word a post compares with its thread to pass on one compare: {@link #claim}'s ready
     * word, or, for a request over caller memory, one that is never ready, so that its posts
     * take the path that tests the caller's arena.
     */
    private final SendQueueClaim passWord;
    private final SendOpcode opcode;
    /** The functions and arguments, in Java fields and in the one-call routine's block. */
    private final ExtendedPostRequest request;
    /** The block's address: the one-call post reads nothing else of {@link #request}. */
    private final long block;
    /** The scope of caller-owned memory the SGE uses, or null for a region that owns its memory. */
    private final MemorySegment.Scope callerScope;
    private final String description;

    private PreparedExtendedSend(ExtendedSendQueue sq, SendRequest r, SendOp op, Thread confinedTo,
            NativeResource[] owners) {
        super(confinedTo, owners);
        this.qp = sq.queuePair();
        this.claim = qp.posts.extendedClaim;
        this.opcode = r.opcode();
        this.callerScope = r.sgeCount() == 0 ? null : r.sges.region(0).callerScope();
        this.passWord = callerScope == null ? claim : SendQueueClaim.NEVER_READY;
        this.description = "prepared extended send (" + opcode + ") on " + qp;
        try {
            this.request = new ExtendedPostRequest(sq.engine(), qp, r);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        this.block = request.blockAddress;
        requireFunctions(op);
    }

    /**
     * Checks {@code request} for the queue pair of {@code sq} as a post and a batch would, and
     * prepares it to be posted through the extended post API, as often as needed. Later changes
     * to {@code request} do not affect the prepared copy.
     *
     * @param sq      the extended post API of the queue pair (its provider functions are used)
     * @param request one request (no chain) with at most one SGE
     * @return the prepared request, a dependent of the queue pair, its region and address handle
     * @throws IllegalArgumentException or {@link IllegalStateException} or
     *         {@link IndexOutOfBoundsException} for what a post or a batch of {@code request}
     *         would refuse, and for a chain, several SGEs or an operation this class does not
     *         prepare; {@link RdmaException} (EOPNOTSUPP) when the provider lacks a builder
     */
    public static PreparedExtendedSend of(ExtendedSendQueue sq, SendRequest request) {
        return prepare(sq, request, null);
    }

    /**
     * As {@link #of(ExtendedSendQueue, SendRequest)}, for the calling thread alone, with the rules
     * of {@link PreparedSend#ofConfined(QueuePair, SendRequest)}: a post takes no guard word, and
     * in exchange only this thread may post or close the request, and while it runs no other
     * thread may close what the request depends on (its queue pair, region, address handle, their
     * protection domain and context): such a close throws {@link WrongThreadException} and changes
     * nothing. Once this thread has terminated, any thread may close it.
     *
     * <p>The post still claims the queue pair's send queue (one compare-and-set before
     * {@code wr_start}) unless this thread owns it ({@link ExtendedSendQueue#ownSendQueue()}).
     * The request is confined, the queue pair is not: another thread may still post on it
     * through an {@link ExtendedSendQueue} batch or a shared {@code PreparedExtendedSend}, and
     * this thread may have a batch open on it. Without the claim either would be a second
     * {@code wr_start} on the provider's spinlock inside a critical downcall: a JVM stuck at its
     * next safepoint, or this thread spinning forever. Owning the send queue is that rule on the
     * queue pair: other threads are refused, and the post compares one field instead (no batch
     * of this thread open, sends not refused since it last looked). See research/notes/2026-11-28-send-queue-owner.md.
     *
     * @param sq      the extended post API of the queue pair (its provider functions are used)
     * @param request one request (no chain) with at most one SGE
     * @return the prepared request, confined to the calling thread
     * @throws IllegalArgumentException or {@link IllegalStateException} or
     *         {@link IndexOutOfBoundsException} for what {@link #of(ExtendedSendQueue, SendRequest)}
     *         refuses; {@link RdmaException} (EOPNOTSUPP) when the provider lacks a builder
     */
    public static PreparedExtendedSend ofConfined(ExtendedSendQueue sq, SendRequest request) {
        return prepare(sq, request, Thread.currentThread());
    }

    private static PreparedExtendedSend prepare(ExtendedSendQueue sq, SendRequest request, Thread confinedTo) {
        QueuePair qp = sq.queuePair();
        try (var _ = hold(qp)) {
            if (request.next != null) {
                throw new IllegalArgumentException(request.describe() + " is chained: a prepared extended send is one"
                        + " request (build several in an ExtendedSendQueue batch)");
            }
            if (request.sgeCount() > 1) {
                throw new IllegalArgumentException(request.describe() + " has " + request.sgeCount() + " SGEs: a"
                        + " prepared extended send takes at most one (use ExtendedSendQueue.sgeList for more)");
            }
            SendOp op = sendOp(request.opcode());
            if (!sq.operations().contains(op)) {
                throw new IllegalStateException(request.describe() + " on " + qp + ": the queue pair was created for "
                        + sq.operations() + ", not " + op + " (add it to extendedPost(...))");
            }
            request.prepare(qp);
            NativeResource region = request.sgeCount() == 1 ? request.sges.region(0) : null;
            NativeResource address = qp.type() == QueuePairType.UD ? request.addressHandle() : null;
            return new PreparedExtendedSend(sq, request, op, confinedTo, new NativeResource[] {qp, region, address});
        }
    }

    private static SendOp sendOp(SendOpcode opcode) {
        return switch (opcode) {
            case SEND -> SendOp.SEND;
            case SEND_WITH_IMM -> SendOp.SEND_WITH_IMM;
            case RDMA_WRITE -> SendOp.RDMA_WRITE;
            case RDMA_WRITE_WITH_IMM -> SendOp.RDMA_WRITE_WITH_IMM;
            case RDMA_READ -> SendOp.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> SendOp.ATOMIC_CMP_AND_SWP;
            case ATOMIC_FETCH_AND_ADD -> SendOp.ATOMIC_FETCH_AND_ADD;
            default -> throw new IllegalArgumentException(opcode + " is not prepared for the extended post API:"
                    + " build it in an ExtendedSendQueue batch");
        };
    }

    // A NULL function would make the downcall refuse (the binding checks) between wr_start and
    // wr_complete: refuse here instead, once. Closes this object, which the owners adopted.
    private void requireFunctions(SendOp op) {
        ExtendedPostRequest r = request;
        boolean batch = r.start.address() != 0 && r.complete.address() != 0 && r.abort.address() != 0;
        String missing = !batch ? "wr_start, wr_complete or wr_abort"
                : r.operation.address() == 0 ? op + " builder"
                : r.data != ExtendedPostRequest.NO_DATA && r.setter.address() == 0
                        ? (r.data == ExtendedPostRequest.SGE ? "wr_set_sge" : "wr_set_inline_data")
                : r.datagram && r.setUdAddr.address() == 0 ? "wr_set_ud_addr" : null;
        if (missing != null) {
            close();
            throw RdmaException.of(Verb.IBV_QP_TO_QP_EX, qp, Errno.EOPNOTSUPP, "the provider has no " + missing);
        }
    }

    /** {@return the queue pair the request is prepared for} */
    public QueuePair queuePair() {
        return qp;
    }

    /**
     * {@return whether {@code thread} may post and close this request: any thread for a request
     * made with {@code of}, only the preparing thread for one made with {@code ofConfined}}
     *
     * @param thread the thread asked about
     */
    public boolean isAccessibleBy(Thread thread) {
        return PostGuard.isAccessibleBy(this, thread);
    }

    /**
     * Posts the request: {@code ibv_wr_start}, the operation, its data, {@code ibv_wr_complete}.
     * Throws {@link IllegalStateException} if this object, or its queue pair, region or address
     * handle, is closed, if the queue pair is in RESET, INIT or RTR or in ERR after
     * {@link QueuePair#toError()}, or if this thread has an {@link ExtendedSendQueue} batch open
     * on the queue pair; {@link WrongThreadException} when another thread owns the send queue
     * ({@link ExtendedSendQueue#ownSendQueue()}); {@link RdmaException} naming the errno when
     * {@code wr_complete} failed (nothing was posted).
     */
    @Reaches({"ibv_wr_start", "ibv_wr_send", "ibv_wr_send_imm", "ibv_wr_rdma_write", "ibv_wr_rdma_write_imm",
            "ibv_wr_rdma_read", "ibv_wr_atomic_cmp_swp", "ibv_wr_atomic_fetch_add", "ibv_wr_set_sge",
            "ibv_wr_set_inline_data", "ibv_wr_set_ud_addr", "ibv_wr_complete", "ibv_wr_abort"})
    public void post() {
        int rc = postNow();
        if (rc != 0) {
            throw failed(rc);
        }
    }

    /**
     * As {@link #post()}, but a full send queue is an answer: false (nothing posted, nothing
     * allocated) when the provider had no room (ENOSPC or ENOMEM).
     *
     * @return whether the request was posted
     */
    @Reaches({"ibv_wr_start", "ibv_wr_send", "ibv_wr_send_imm", "ibv_wr_rdma_write", "ibv_wr_rdma_write_imm",
            "ibv_wr_rdma_read", "ibv_wr_atomic_cmp_swp", "ibv_wr_atomic_fetch_add", "ibv_wr_set_sge",
            "ibv_wr_set_inline_data", "ibv_wr_set_ud_addr", "ibv_wr_complete", "ibv_wr_abort"})
    public boolean tryPost() {
        int rc = postNow();
        if (rc == 0) {
            return true;
        }
        if (rc == Errno.ENOMEM || rc == SendOperations.ENOSPC) {
            return false;
        }
        throw failed(rc);
    }

    // The guard lives in PostGuard, one for the three prepared requests.
    private static final PostGuard.Inside<PreparedExtendedSend> INSIDE = PreparedExtendedSend::postInside;

    private int postNow() {
        return PostGuard.post(this, INSIDE);
    }

    private int postInside() {
        if (passWord.isReady(Thread.currentThread())) {
            // This thread owns the send queue and has no batch open, the queue pair took sends when it
            // last looked and every refusing transition since cleared the word (SendQueueClaim), and the
            // request's memory is its region's (no caller arena to test): one compare for the refusal
            // word, the caller-memory test and the claim. No other section can be open.
            return postCall();
        }
        return postChecked();
    }

    // The refusal word and the caller's arena, then the claim unless the owner is ready (a request over
    // caller memory); an owner's claimed post arms the one-compare path again (after own(), a batch, a
    // refusing transition).
    private int postChecked() {
        if ((qp.refused & QueuePair.NO_SEND) != 0) {
            throw refused();
        }
        if (callerScope != null && !callerScope.isAlive()) {
            throw callerMemoryClosed();
        }
        SendQueueClaim sendQueue = claim;
        if (sendQueue.isReady(Thread.currentThread())) {
            return postCall();
        }
        sendQueue.claim(qp);
        int rc;
        try {
            rc = postCall();
        } finally {
            sendQueue.release();
        }
        sendQueue.arm(qp);
        return rc;
    }

    private int postCall() {
        // One downcall: nothing between wr_start and wr_complete can throw, so no abort path.
        return ExtendedPostRequest.ONE_CALL ? ExtendedPostTrampoline.post(block) : request.postCallByCall();
    }

    // Out of line: messages are built only on the failure paths, keeping post() small for C2.
    private IllegalStateException refused() {
        return PostRefusals.send(qp, "work request wr_id " + request.wrId + " (" + opcode + ")", qp.lastState);
    }

    private IllegalStateException callerMemoryClosed() {
        return new IllegalStateException("the arena of memory that " + this + " uses was closed before its memory"
                + " region: close memory regions before the arena that owns their memory");
    }

    private RdmaException failed(int rc) {
        return RdmaException.of(Verb.IBV_WR_COMPLETE, qp, rc, "work request wr_id " + request.wrId + " of " + this
                + " was not posted");
    }

    /**
     * Sets the wr_id of the next posts.
     *
     * @param wrId any 64-bit value, returned in the completion
     * @return this request
     */
    public PreparedExtendedSend wrId(long wrId) {
        request.wrId(wrId);
        return this;
    }

    /** {@return the wr_id the next post carries} */
    public long wrId() {
        return request.wrId;
    }

    /**
     * Sets whether the next posts generate a completion (completion moderation).
     *
     * @param signaled false to skip the completion (the queue pair must not signal all)
     * @return this request
     */
    public PreparedExtendedSend signaled(boolean signaled) {
        int flags = request.flags;
        request.flags(signaled ? flags | SendOperations.SIGNALED : flags & ~SendOperations.SIGNALED);
        return this;
    }

    /**
     * Sets the immediate data, in host order (SEND_WITH_IMM and RDMA_WRITE_WITH_IMM).
     *
     * @param value delivered in the receiver's completion
     * @return this request
     * @throws IllegalStateException when the operation carries no immediate data
     */
    public PreparedExtendedSend immediateData(int value) {
        int kind = request.kind;
        if (kind != ExtendedPostRequest.SEND_IMM && kind != ExtendedPostRequest.WRITE_IMM) {
            throw new IllegalStateException(this + " carries no immediate data");
        }
        request.immediate(Integer.reverseBytes(value));
        return this;
    }

    /** {@return the number of bytes the next post carries} */
    public int byteLength() {
        return request.length;
    }

    /**
     * Sets the length of the SGE (or inline data), at most the length prepared: so the region
     * bounds and inline size checked then still hold. For RDMA the data must also fit the remote
     * memory from the current {@link #remoteOffset(long)}. Atomics keep their 8 bytes.
     *
     * @param bytes {@code 0 <= bytes <=} the length prepared
     * @return this request
     * @throws IllegalStateException for an atomic operation, or a request without an SGE
     * @throws IndexOutOfBoundsException when the length is out of those bounds
     */
    public PreparedExtendedSend length(int bytes) {
        ExtendedPostRequest r = request;
        if (atomic(r) || r.data == ExtendedPostRequest.NO_DATA) {
            throw new IllegalStateException(this + ": only the length of a non-atomic request's SGE can change");
        }
        if (bytes < 0 || bytes > r.maxLength) {
            throw new IndexOutOfBoundsException("length " + bytes + " of " + this + ": it was prepared with "
                    + r.maxLength + " bytes, the most it may carry");
        }
        if (r.remoteLength >= 0 && r.remoteOffset + bytes > r.remoteLength) {
            throw new IndexOutOfBoundsException(bytes + " bytes at remote offset " + r.remoteOffset + " overrun the "
                    + r.remoteLength + " bytes of remote memory of " + this);
        }
        r.length(bytes);
        return this;
    }

    /**
     * Moves the remote address to {@code offset} bytes past the one prepared, within the remote
     * memory given then: the data must fit from there, and an atomic target stays 8-byte aligned.
     *
     * @param offset from the remote address prepared
     * @return this request
     * @throws IllegalStateException when the operation has no remote memory
     * @throws IndexOutOfBoundsException when the data would not fit the remote memory from there
     */
    public PreparedExtendedSend remoteOffset(long offset) {
        ExtendedPostRequest r = request;
        if (r.remoteLength < 0) {
            throw new IllegalStateException(this + " has no remote memory");
        }
        boolean atomic = atomic(r);
        long bytes = atomic ? 8 : r.length;
        if (offset < 0 || offset > r.remoteLength - bytes || (atomic && ((r.remoteBase + offset) & 7) != 0)) {
            throw new IndexOutOfBoundsException("remote offset " + offset + " of " + this + ": " + bytes
                    + " bytes must fit, aligned for atomics, in the " + r.remoteLength + " bytes prepared");
        }
        r.remoteOffset(offset);
        return this;
    }

    private static boolean atomic(ExtendedPostRequest r) {
        return r.kind == ExtendedPostRequest.CMP_SWP || r.kind == ExtendedPostRequest.FETCH_ADD;
    }

    /** Frees the post block (null when the constructor failed before it). */
    @Override
    protected void release() {
        if (request != null) {
            request.free();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
