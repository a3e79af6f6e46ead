// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.util.ArrayList;
import java.util.List;

/**
 * A send work request (or a chain of them) checked once for one queue pair and then posted as
 * often as needed: what perftest does with the {@code struct ibv_send_wr} it builds before its
 * loop. {@link #of(QueuePair, SendRequest)} runs every check a {@link QueuePair#post(SendRequest)}
 * runs - regions open, in the queue pair's protection domain and in bounds; the opcode allowed
 * for the queue pair's type; remote memory set for RDMA and atomics and large enough; the
 * inline size within the queue pair's limit; a UD destination in the same protection domain -
 * and copies the native structs into memory this object owns. {@link #post()} then tests this
 * object's open/close guard and the queue pair's state word and calls the provider: the checks
 * moved out of the loop, none was dropped.
 *
 * <p>Between posts only what perftest's loops change can change, each checked cheaply against
 * what was prepared: the wr_id ({@link #wrId(int, long)}), the signalled flag
 * ({@link #signaled(int, boolean)}), immediate data, the length of a single-SGE request down from
 * the length prepared ({@link #length(int, int)}), and the offset into the remote memory
 * ({@link #remoteOffset(int, long)}). Anything else means preparing a new request.
 *
 * <p>Closing the queue pair, a memory region or the address handle the request uses closes this
 * object first (waiting for a post running in another thread); its next {@code post} throws
 * {@link IllegalStateException}. Closing it yourself frees its native memory. Posting is not
 * thread-safe, as for the queue pair: post from one thread at a time. Posting allocates nothing.
 *
 * <p>A request that one thread prepares, posts and closes can be made with
 * {@link #ofConfined(QueuePair, SendRequest)}: its posts take no guard word (no atomic), and in
 * exchange other threads can neither post it nor close it or what it depends on while that
 * thread runs ({@link WrongThreadException}). {@link #isAccessibleBy(Thread)} tells which.
 *
 * <pre>{@code
 * try (PreparedSend send = PreparedSend.of(qp, new SendRequest().sge(mr, 0, 64).inline(true))) {
 *     for (int i = 0; i < n; i++) {
 *         send.post();
 *         cq.take(wc, timeout);
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #toString()}: {@code prepared send of <n> work request(s) (<opcode>) on <queue pair>}.
 */
public final class PreparedSend extends PreparedWork {
    private static final long WR_SIZE = ibv_send_wr.layout().byteSize();
    private static final long SEND_FLAGS = ibv_send_wr.send_flags$offset();
    private static final long IMM_DATA = ibv_send_wr.imm_data$offset();
    private static final long REMOTE_ADDR = ibv_send_wr.wr$offset() + ibv_send_wr.wr.rdma$offset()
            + ibv_send_wr.wr.rdma.remote_addr$offset();
    private static final int SIGNALED = 1 << 1;

    static {
        // remoteOffset writes remote_addr at one offset for RDMA and atomic requests alike.
        if (ibv_send_wr.wr.atomic$offset() + ibv_send_wr.wr.atomic.remote_addr$offset()
                != ibv_send_wr.wr.rdma$offset() + ibv_send_wr.wr.rdma.remote_addr$offset()) {
            throw new AssertionError("wr.rdma.remote_addr and wr.atomic.remote_addr no longer share an offset");
        }
    }

    private final QueuePair qp;
    private final long qpAddress;
    private final java.lang.foreign.MemorySegment postSendFn;
    private final boolean bound;
    private final SendOpcode[] opcodes;
    /** Per request: send_flags as written. */
    private final int[] flags;
    /** Per RDMA or atomic request: the remote address and length prepared, and the offset now; -1 length otherwise. */
    private final long[] remoteBase;
    private final long[] remoteLength;
    private final long[] remoteOffset;
    private final String description;

    private PreparedSend(QueuePair qp, List<SendRequest> chain, Thread confinedTo, NativeResource[] owners) {
        super(chain, WR_SIZE, confinedTo, owners);
        this.qp = qp;
        this.qpAddress = qp.address;
        this.postSendFn = qp.posts.postSendFn;
        this.bound = qp.posts.sendBound;
        int n = chain.size();
        this.opcodes = new SendOpcode[n];
        this.flags = new int[n];
        this.remoteBase = new long[n];
        this.remoteLength = new long[n];
        this.remoteOffset = new long[n];
        for (int i = 0; i < n; i++) {
            SendRequest r = chain.get(i);
            opcodes[i] = r.opcode();
            flags[i] = memory.get(JAVA_INT, at(i) + SEND_FLAGS);
            boolean remote = switch (r.opcode()) {
                case RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> true;
                default -> false;
            };
            remoteBase[i] = remote ? memory.get(JAVA_LONG, at(i) + REMOTE_ADDR) : 0;
            remoteLength[i] = remote ? r.remoteLength() : -1;
        }
        this.description = "prepared send of " + n + " work request" + (n == 1 ? "" : "s") + " (" + opcodes[0]
                + (n == 1 ? "" : ", ...") + ") on " + qp;
    }

    /**
     * Checks {@code request} (and the requests chained to it with {@link SendRequest#next}) for
     * {@code qp} as a post would, and prepares them to be posted together, as often as needed.
     * Later changes to {@code request} do not affect the prepared copy.
     *
     * @param qp      the queue pair to post to
     * @param request the first request of the chain
     * @return the prepared request, a dependent of the queue pair, its regions and address handle
     * @throws IllegalArgumentException or {@link IllegalStateException} or
     *         {@link IndexOutOfBoundsException} for what a post of {@code request} would refuse
     */
    public static PreparedSend of(QueuePair qp, SendRequest request) {
        return prepare(qp, request, null);
    }

    /**
     * As {@link #of(QueuePair, SendRequest)}, for the calling thread alone, as an
     * {@link java.lang.foreign.Arena#ofConfined() confined arena} is: a post takes no atomic (a
     * shared request's guard costs a store-load fence per post), and in exchange only this thread
     * may post or close the request, and while it runs, no other thread may close what the request
     * depends on (its queue pair, regions, address handle, their protection domain and context).
     * Such a close throws {@link WrongThreadException} and changes nothing; close the request first,
     * on this thread. Once this thread has terminated, any thread may close it.
     *
     * @param qp      the queue pair to post to
     * @param request the first request of the chain
     * @return the prepared request, confined to the calling thread
     * @throws IllegalArgumentException or {@link IllegalStateException} or
     *         {@link IndexOutOfBoundsException} for what a post of {@code request} would refuse
     */
    public static PreparedSend ofConfined(QueuePair qp, SendRequest request) {
        return prepare(qp, request, Thread.currentThread());
    }

    private static PreparedSend prepare(QueuePair qp, SendRequest request, Thread confinedTo) {
        try (var _ = hold(qp)) {
            request.prepare(qp);
            List<SendRequest> chain = chain(request);
            List<NativeResource> owners = new ArrayList<>();
            owners.add(qp);
            for (SendRequest r : chain) {
                for (int k = 0; k < r.sges.count(); k++) {
                    owners.add(r.sges.region(k));
                }
                if (r.addressHandle() != null && qp.type() == QueuePairType.UD) {
                    owners.add(r.addressHandle());
                }
            }
            return new PreparedSend(qp, chain, confinedTo, owners.toArray(NativeResource[]::new));
        }
    }

    /** {@return the queue pair the request is prepared for} */
    public QueuePair queuePair() {
        return qp;
    }

    /**
     * Posts the prepared chain. Throws {@link IllegalStateException} if this object, or its
     * queue pair, a region or address handle it uses, is closed, or if the queue pair is in
     * RESET, INIT or RTR or in ERR after {@link QueuePair#toError()}; {@link RdmaException}
     * naming the first request the provider refused (requests before it were posted).
     */
    @Reaches("ibv_post_send")
    public void post() {
        int rc = postNow();
        if (rc != 0) {
            throw PostRefusals.failure(qp, Verb.IBV_POST_SEND, rc, describeBad());
        }
    }

    /**
     * As {@link #post()}, but a full send queue is an answer: returns false, allocating nothing,
     * when the provider had no room for the first request (ENOMEM), so nothing was posted.
     *
     * @return true when the whole chain was posted, false when none of it was for lack of room
     */
    @Reaches("ibv_post_send")
    public boolean tryPost() {
        int rc = postNow();
        if (rc == 0) {
            return true;
        }
        if (refusedForRoom(rc)) {
            return false;
        }
        throw PostRefusals.failure(qp, Verb.IBV_POST_SEND, rc, describeBad());
    }

    // The guard lives in PostGuard, one for the three prepared requests.
    private static final PostGuard.Inside<PreparedSend> INSIDE = PreparedSend::postInside;

    private int postNow() {
        return PostGuard.post(this, INSIDE);
    }

    private int postInside() {
        if ((qp.refused & QueuePair.NO_SEND) != 0) {
            throw refused();
        }
        checkCallerMemory();
        return bound ? BoundVerbs.postSend(qpAddress, first, badWr)
                : InlineVerbs.postSend(postSendFn, qpAddress, first, badWr);
    }

    // Out of line: the message is built only when a post is refused, and keeping it out of
    // postNow keeps post() small enough for C2 to inline into a caller's loop.
    private IllegalStateException refused() {
        return PostRefusals.send(qp, describe(0), qp.lastState);
    }

    /**
     * Sets the wr_id of the first request.
     *
     * @param wrId any 64-bit value, returned in the completion
     * @return this request
     */
    public PreparedSend wrId(long wrId) {
        setWrId(0, wrId);
        return this;
    }

    /**
     * Sets the wr_id of request {@code index} of the chain.
     *
     * @param index {@code 0 <= index < size()}
     * @param wrId  any 64-bit value, returned in the completion
     * @return this request
     */
    public PreparedSend wrId(int index, long wrId) {
        setWrId(index, wrId);
        return this;
    }

    /**
     * Sets whether the first request generates a completion (completion moderation: perftest
     * signals every cq-mod-th send).
     *
     * @param signaled false to skip the completion (the queue pair must not signal all)
     * @return this request
     */
    public PreparedSend signaled(boolean signaled) {
        return signaled(0, signaled);
    }

    /**
     * Sets whether request {@code index} generates a completion.
     *
     * @param index    {@code 0 <= index < size()}
     * @param signaled false to skip the completion
     * @return this request
     */
    public PreparedSend signaled(int index, boolean signaled) {
        long at = at(index);
        int now = signaled ? flags[index] | SIGNALED : flags[index] & ~SIGNALED;
        if (now != flags[index]) {
            memory.set(JAVA_INT, at + SEND_FLAGS, now);
            flags[index] = now;
        }
        return this;
    }

    /**
     * Sets the immediate data of request {@code index}, in host order (used by SEND_WITH_IMM and
     * RDMA_WRITE_WITH_IMM).
     *
     * @param index {@code 0 <= index < size()}
     * @param value delivered in the receiver's completion
     * @return this request
     */
    public PreparedSend immediateData(int index, int value) {
        memory.set(JAVA_INT, at(index) + IMM_DATA, Integer.reverseBytes(value));
        return this;
    }

    /**
     * Sets the length of the first request's only SGE; see {@link #length(int, int)}.
     *
     * @param bytes {@code 0 <= bytes <=} the length prepared
     * @return this request
     */
    public PreparedSend length(int bytes) {
        return length(0, bytes);
    }

    /**
     * Sets the length of request {@code index}'s only SGE, at most the length it was prepared
     * with: so the region bounds, inline size and remote size checked then still hold. For an
     * RDMA request the data must also still fit the remote memory from the current
     * {@link #remoteOffset}. Atomics keep their 8 bytes.
     *
     * @param index {@code 0 <= index < size()}
     * @param bytes {@code 0 <= bytes <=} the length prepared
     * @return this request
     * @throws IllegalStateException when the request has several SGEs, or is atomic
     * @throws IndexOutOfBoundsException when the length is out of those bounds
     */
    public PreparedSend length(int index, int bytes) {
        if (isAtomic(checkIndex(index))) {
            throw new IllegalStateException(describe(index) + " of " + this + ": an atomic operation's length is 8 bytes");
        }
        if (remoteLength[index] >= 0 && remoteOffset[index] + bytes > remoteLength[index]) {
            throw new IndexOutOfBoundsException(bytes + " bytes at remote offset " + remoteOffset[index] + " overrun the "
                    + remoteLength[index] + " bytes of remote memory of " + describe(index));
        }
        setLength(index, bytes);
        return this;
    }

    /**
     * Moves the remote address of the first request; see {@link #remoteOffset(int, long)}.
     *
     * @param offset from the remote address prepared
     * @return this request
     */
    public PreparedSend remoteOffset(long offset) {
        return remoteOffset(0, offset);
    }

    /**
     * Moves request {@code index}'s remote address to {@code offset} bytes past the remote
     * address it was prepared with, within the remote memory given then
     * ({@link SendRequest#remote(long, long, int)}): the data must fit from there, and an atomic
     * target stays 8-byte aligned.
     *
     * @param index  {@code 0 <= index < size()}
     * @param offset from the remote address prepared
     * @return this request
     * @throws IllegalStateException when the request is not an RDMA or atomic operation
     * @throws IndexOutOfBoundsException when the data would not fit the remote memory from there
     */
    public PreparedSend remoteOffset(int index, long offset) {
        long limit = remoteLength[checkIndex(index)];
        if (limit < 0) {
            throw new IllegalStateException(describe(index) + " of " + this + " has no remote memory");
        }
        long bytes = isAtomic(index) ? 8 : length[index];
        if (offset < 0 || offset > limit - bytes || (isAtomic(index) && ((remoteBase[index] + offset) & 7) != 0)) {
            throw new IndexOutOfBoundsException("remote offset " + offset + " of " + describe(index) + ": " + bytes
                    + " bytes must fit, aligned for atomics, in the " + limit + " bytes prepared");
        }
        memory.set(JAVA_LONG, at(index) + REMOTE_ADDR, remoteBase[index] + offset);
        remoteOffset[index] = offset;
        return this;
    }

    private boolean isAtomic(int index) {
        return opcodes[index] == SendOpcode.ATOMIC_CMP_AND_SWP || opcodes[index] == SendOpcode.ATOMIC_FETCH_AND_ADD;
    }

    @Override
    String describe(int index) {
        return "work request wr_id " + wrIdOf(index) + " (" + opcodes[index] + ")";
    }

    @Override
    public String toString() {
        return description;
    }
}
