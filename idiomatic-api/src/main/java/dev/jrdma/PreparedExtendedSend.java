// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtendedPostVerbs;
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
 * {@code wr_start}, and one open in another thread makes it wait in Java until it ends. An
 * exception between {@code wr_start} and {@code wr_complete} aborts ({@code ibv_wr_abort}).
 *
 * <p>Closing the queue pair, the region or the address handle closes this object first (waiting
 * for a post running in another thread); its next post throws {@link IllegalStateException}.
 * A request that one thread prepares, posts and closes can be made with
 * {@link #ofConfined(ExtendedSendQueue, SendRequest)}: its posts take no guard word (they still
 * claim the send queue), and other threads can neither post it nor close it or what it depends
 * on while that thread runs ({@link WrongThreadException}).
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
    private static final int SEND = 0;
    private static final int SEND_IMM = 1;
    private static final int WRITE = 2;
    private static final int WRITE_IMM = 3;
    private static final int READ = 4;
    private static final int CMP_SWP = 5;
    private static final int FETCH_ADD = 6;
    private static final int NO_DATA = 0;
    private static final int SGE = 1;
    private static final int INLINE_DATA = 2;

    private final QueuePair qp;
    private final long qpEx;
    private final SendQueueClaim claim;
    private final MemorySegment start;
    private final MemorySegment complete;
    private final MemorySegment abort;
    private final MemorySegment operation;
    private final MemorySegment setter;
    private final MemorySegment setUdAddr;
    private final SendOpcode opcode;
    private final int kind;
    private final int data;
    private final boolean datagram;
    private final int lkey;
    private final long dataAddress;
    private final int maxLength;
    private final int rkey;
    /** The remote address and length prepared; -1 length without remote memory. */
    private final long remoteBase;
    private final long remoteLength;
    private final long compareAdd;
    private final long swap;
    private final long ah;
    private final int remoteQpn;
    private final int remoteQkey;
    /** The scope of caller-owned memory the SGE uses, or null for a region that owns its memory. */
    private final MemorySegment.Scope callerScope;
    private final String description;

    private long wrId;
    private int flags;
    /** Network order, as the builders take it. */
    private int immediate;
    private int length;
    private long remoteOffset;

    private PreparedExtendedSend(ExtendedSendQueue sq, SendRequest r, SendOp op, Thread confinedTo,
            NativeResource[] owners) {
        super(confinedTo, owners);
        SendOperations ops = sq.engine();
        ExtendedPostFunctions fn = ops.functions();
        this.qp = sq.queuePair();
        this.qpEx = ops.qpEx();
        this.claim = qp.posts.extendedClaim;
        this.start = fn.start();
        this.complete = fn.complete();
        this.abort = fn.abort();
        this.opcode = r.opcode();
        this.kind = kind(opcode);
        this.operation = switch (kind) {
            case SEND -> fn.send();
            case SEND_IMM -> fn.sendImm();
            case WRITE -> fn.rdmaWrite();
            case WRITE_IMM -> fn.rdmaWriteImm();
            case READ -> fn.rdmaRead();
            case CMP_SWP -> fn.cmpSwp();
            default -> fn.fetchAdd();
        };
        MemorySegment wr = r.wr;
        this.wrId = ibv_send_wr.wr_id(wr);
        this.flags = ibv_send_wr.send_flags(wr);
        this.immediate = ibv_send_wr.imm_data(wr);
        boolean inline = (flags & SendOperations.INLINE) != 0;
        if (r.sgeCount() == 0) {
            this.data = NO_DATA;
            this.setter = MemorySegment.NULL;
            this.lkey = 0;
            this.dataAddress = 0;
            this.maxLength = 0;
            this.callerScope = null;
        } else {
            MemorySegment sge = ibv_send_wr.sg_list(wr).reinterpret(ibv_sge.layout().byteSize());
            this.data = inline ? INLINE_DATA : SGE;
            this.setter = inline ? fn.setInline() : fn.setSge();
            this.lkey = ibv_sge.lkey(sge);
            this.dataAddress = ibv_sge.addr(sge);
            this.maxLength = ibv_sge.length(sge);
            this.callerScope = r.sges.region(0).callerScope();
        }
        this.length = maxLength;
        boolean atomic = kind == CMP_SWP || kind == FETCH_ADD;
        boolean remote = kind >= WRITE;
        MemorySegment union = ibv_send_wr.wr(wr);
        if (atomic) {
            MemorySegment a = ibv_send_wr.wr.atomic(union);
            this.remoteBase = ibv_send_wr.wr.atomic.remote_addr(a);
            this.rkey = ibv_send_wr.wr.atomic.rkey(a);
            this.compareAdd = ibv_send_wr.wr.atomic.compare_add(a);
            this.swap = ibv_send_wr.wr.atomic.swap(a);
        } else {
            MemorySegment rdma = ibv_send_wr.wr.rdma(union);
            this.remoteBase = remote ? ibv_send_wr.wr.rdma.remote_addr(rdma) : 0;
            this.rkey = remote ? ibv_send_wr.wr.rdma.rkey(rdma) : 0;
            this.compareAdd = 0;
            this.swap = 0;
        }
        this.remoteLength = remote ? r.remoteLength() : -1;
        this.datagram = qp.type() == QueuePairType.UD;
        this.setUdAddr = datagram ? fn.setUdAddr() : MemorySegment.NULL;
        MemorySegment ud = ibv_send_wr.wr.ud(union);
        this.ah = datagram ? ibv_send_wr.wr.ud.ah(ud).address() : 0;
        this.remoteQpn = datagram ? ibv_send_wr.wr.ud.remote_qpn(ud) : 0;
        this.remoteQkey = datagram ? ibv_send_wr.wr.ud.remote_qkey(ud) : 0;
        this.description = "prepared extended send (" + opcode + ") on " + qp;
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
     * {@code wr_start}). The request is confined, the queue pair is not: another thread may
     * still post on it through an {@link ExtendedSendQueue} batch or a shared
     * {@code PreparedExtendedSend}, and this thread may have a batch open on it. Without the
     * claim either would be a second {@code wr_start} on the provider's spinlock inside a
     * critical downcall: a JVM stuck at its next safepoint, or this thread spinning forever.
     * Skipping it would need the queue pair's whole send queue confined to one thread, which is
     * a rule on the queue pair, not on this request. The claim is the same kind of instruction as
     * the shared guard's compare-and-set, which a classic confined post saves (C + 2.2 against
     * C + 4.6 ns per send post on the stub provider, bench/README.md); see
     * research/notes/2026-11-28-confined-extended-post.md.
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

    private static int kind(SendOpcode opcode) {
        return switch (opcode) {
            case SEND -> SEND;
            case SEND_WITH_IMM -> SEND_IMM;
            case RDMA_WRITE -> WRITE;
            case RDMA_WRITE_WITH_IMM -> WRITE_IMM;
            case RDMA_READ -> READ;
            case ATOMIC_CMP_AND_SWP -> CMP_SWP;
            default -> FETCH_ADD;
        };
    }

    // A NULL function would make the downcall refuse (the binding checks) between wr_start and
    // wr_complete: refuse here instead, once. Closes this object, which the owners adopted.
    private void requireFunctions(SendOp op) {
        boolean batch = start.address() != 0 && complete.address() != 0 && abort.address() != 0;
        String missing = !batch ? "wr_start, wr_complete or wr_abort"
                : operation.address() == 0 ? op + " builder"
                : data != NO_DATA && setter.address() == 0 ? (data == SGE ? "wr_set_sge" : "wr_set_inline_data")
                : datagram && setUdAddr.address() == 0 ? "wr_set_ud_addr" : null;
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
     * on the queue pair; {@link RdmaException} naming the errno when {@code wr_complete} failed
     * (nothing was posted).
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
        if ((qp.refused & QueuePair.NO_SEND) != 0) {
            throw refused();
        }
        if (callerScope != null && !callerScope.isAlive()) {
            throw callerMemoryClosed();
        }
        SendQueueClaim sendQueue = claim;
        sendQueue.claim(qp);
        try {
            long q = qpEx;
            ExtendedPostVerbs.wrStart(start, q);
            try {
                build(q);
            } catch (RuntimeException | Error e) {
                // The provider holds the send queue's lock until complete or abort.
                ExtendedPostVerbs.wrAbort(abort, q);
                throw e;
            }
            return ExtendedPostVerbs.wrComplete(complete, q);
        } finally {
            sendQueue.release();
        }
    }

    /** The operation and its setters, between wr_start and wr_complete. */
    private void build(long q) {
        ExtendedPostVerbs.setRequest(q, wrId, flags);
        long remote = remoteBase + remoteOffset;
        switch (kind) {
            case SEND -> ExtendedPostVerbs.wrSend(operation, q);
            case SEND_IMM -> ExtendedPostVerbs.wrInt(operation, q, immediate);
            case WRITE, READ -> ExtendedPostVerbs.wrRemote(operation, q, rkey, remote);
            case WRITE_IMM -> ExtendedPostVerbs.wrIntLongInt(operation, q, rkey, remote, immediate);
            case CMP_SWP -> ExtendedPostVerbs.wrAtomicCmpSwp(operation, q, rkey, remote, compareAdd, swap);
            default -> ExtendedPostVerbs.wrIntLongLong(operation, q, rkey, remote, compareAdd);
        }
        if (data == SGE) {
            ExtendedPostVerbs.wrIntLongInt(setter, q, lkey, dataAddress, length);
        } else if (data == INLINE_DATA) {
            ExtendedPostVerbs.wrLongLong(setter, q, dataAddress, length);
        }
        if (datagram) {
            ExtendedPostVerbs.wrSetUdAddr(setUdAddr, q, ah, remoteQpn, remoteQkey);
        }
    }

    // Out of line: messages are built only on the failure paths, keeping post() small for C2.
    private IllegalStateException refused() {
        return PostRefusals.send(qp, "work request wr_id " + wrId + " (" + opcode + ")", qp.lastState);
    }

    private IllegalStateException callerMemoryClosed() {
        return new IllegalStateException("the arena of memory that " + this + " uses was closed before its memory"
                + " region: close memory regions before the arena that owns their memory");
    }

    private RdmaException failed(int rc) {
        return RdmaException.of(Verb.IBV_WR_COMPLETE, qp, rc, "work request wr_id " + wrId + " of " + this
                + " was not posted");
    }

    /**
     * Sets the wr_id of the next posts.
     *
     * @param wrId any 64-bit value, returned in the completion
     * @return this request
     */
    public PreparedExtendedSend wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /** {@return the wr_id the next post carries} */
    public long wrId() {
        return wrId;
    }

    /**
     * Sets whether the next posts generate a completion (completion moderation).
     *
     * @param signaled false to skip the completion (the queue pair must not signal all)
     * @return this request
     */
    public PreparedExtendedSend signaled(boolean signaled) {
        flags = signaled ? flags | SendOperations.SIGNALED : flags & ~SendOperations.SIGNALED;
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
        if (kind != SEND_IMM && kind != WRITE_IMM) {
            throw new IllegalStateException(this + " carries no immediate data");
        }
        this.immediate = Integer.reverseBytes(value);
        return this;
    }

    /** {@return the number of bytes the next post carries} */
    public int byteLength() {
        return length;
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
        if (kind == CMP_SWP || kind == FETCH_ADD || data == NO_DATA) {
            throw new IllegalStateException(this + ": only the length of a non-atomic request's SGE can change");
        }
        if (bytes < 0 || bytes > maxLength) {
            throw new IndexOutOfBoundsException("length " + bytes + " of " + this + ": it was prepared with "
                    + maxLength + " bytes, the most it may carry");
        }
        if (remoteLength >= 0 && remoteOffset + bytes > remoteLength) {
            throw new IndexOutOfBoundsException(bytes + " bytes at remote offset " + remoteOffset + " overrun the "
                    + remoteLength + " bytes of remote memory of " + this);
        }
        this.length = bytes;
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
        if (remoteLength < 0) {
            throw new IllegalStateException(this + " has no remote memory");
        }
        boolean atomic = kind == CMP_SWP || kind == FETCH_ADD;
        long bytes = atomic ? 8 : length;
        if (offset < 0 || offset > remoteLength - bytes || (atomic && ((remoteBase + offset) & 7) != 0)) {
            throw new IndexOutOfBoundsException("remote offset " + offset + " of " + this + ": " + bytes
                    + " bytes must fit, aligned for atomics, in the " + remoteLength + " bytes prepared");
        }
        this.remoteOffset = offset;
        return this;
    }

    /** Nothing native of its own: the request lives in Java fields and the provider's send queue. */
    @Override
    protected void release() {
    }

    @Override
    public String toString() {
        return description;
    }
}
