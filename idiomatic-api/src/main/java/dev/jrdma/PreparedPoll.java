// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_wc;
import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;

/**
 * A poll of one completion queue set up once for a polling loop, as perftest's latency loops
 * poll one completion at a time into the {@code struct ibv_wc} they allocated before the loop.
 * {@link #poll()} calls the provider's {@code poll_cq} for one completion and returns its status
 * code, or {@link #EMPTY}; nothing else of the completion is read until the caller asks
 * {@link #completion()} for it.
 *
 * <pre>{@code
 * try (PreparedPoll poll = PreparedPoll.of(cq)) {
 *     int status;
 *     while ((status = poll.poll()) == PreparedPoll.EMPTY) {
 *         // busy-poll, with the loop's own timeout
 *     }
 *     if (status != PreparedPoll.SUCCESS) {
 *         poll.completion().checkSuccess();   // throws, naming the status, wr_id and QP
 *     }
 *     long wrId = poll.completion().wrId();
 * }
 * }</pre>
 *
 * <p>Why an object of its own rather than {@link CompletionQueue#poll(WorkCompletion)}: that
 * poll enters the queue's close guard (two atomic adds, since any number of threads may poll a
 * queue) and looks at every completion for the error event. A prepared poll is a dependent of
 * its queue, so closing the queue closes it first, and a poll tests this object's guard, which
 * costs one compare-and-set and a plain store when one thread polls through it (another thread
 * polling through the same object at once takes the counted guard; nothing breaks, but the
 * completion view is then shared, as a {@code WorkCompletion} must not be). After a close the
 * next poll throws {@link IllegalStateException}. Polling allocates nothing.
 *
 * <p>A poll that one thread sets up, polls and closes can be made with
 * {@link #ofConfined(CompletionQueue)}: it takes no guard word (no atomic per poll), and in
 * exchange other threads can neither poll through it nor close it or what it depends on (the
 * queue, its context) while that thread runs ({@link WrongThreadException}), as for
 * {@link PreparedSend#ofConfined}.
 *
 * <p>{@link #toString()}: {@code prepared poll of <completion queue>}.
 */
public final class PreparedPoll extends NativeResource {
    /** What {@link #poll()} returns when the queue had no completion. */
    public static final int EMPTY = -1;
    /** The status code of a successful completion ({@code IBV_WC_SUCCESS}). */
    public static final int SUCCESS = 0;

    /**
     * The status read of {@link #poll()}: one opaque int read through a segment that spans the
     * address space, a constant. A busy-poll finds a completion once in hundreds to thousands of
     * polls, so C2 sees the status read as a cold site and leaves any call under it out of line
     * unless the call is forced, an intrinsic or an accessor (research/notes/
     * 2026-11-27-status-read.md). Through a constant segment every call under the read has one
     * target, the var handle's steps are {@code @ForceInline} and the opaque access ends in an
     * intrinsic (a plain access ends in a call that is not forced); an opaque int read is a plain
     * load on x86-64 and AArch64. Through the completion's byte buffer the read was ~27
     * instructions per wait with its checks, with three calls left out of line. Safe: the
     * address is this object's own completion struct, alive while {@code wc} is reachable.
     */
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final MemorySegment ADDRESS_SPACE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final CompletionQueue cq;
    private final long cqAddress;
    private final MemorySegment pollFn;
    private final boolean bound;
    private final WorkCompletion wc = new WorkCompletion();
    private final long wcAddress = wc.address();
    private final long statusAddress = wcAddress + ibv_wc.status$offset();
    private final String description;

    private PreparedPoll(CompletionQueue cq, Thread confinedTo) {
        super(confinedTo, cq);
        this.cq = cq;
        this.cqAddress = cq.address();
        this.pollFn = cq.pollFunction();
        this.bound = cq.pollBound();
        this.description = "prepared poll of " + cq;
    }

    /**
     * Sets up polling {@code cq} one completion at a time.
     *
     * @param cq the completion queue to poll
     * @return the prepared poll, a dependent of {@code cq}
     * @throws IllegalStateException if {@code cq} is closed
     */
    public static PreparedPoll of(CompletionQueue cq) {
        return new PreparedPoll(cq, null);
    }

    /**
     * As {@link #of(CompletionQueue)}, for the calling thread alone: a poll takes no guard word,
     * and while this thread runs no other thread may poll through it or close it, {@code cq} or
     * its context ({@link WrongThreadException}, nothing changed). Once this thread has
     * terminated, any thread may close it.
     *
     * @param cq the completion queue to poll
     * @return the prepared poll, confined to the calling thread
     * @throws IllegalStateException if {@code cq} is closed
     */
    public static PreparedPoll ofConfined(CompletionQueue cq) {
        return new PreparedPoll(cq, Thread.currentThread());
    }

    /**
     * {@return whether {@code thread} may poll through and close this object: any thread for one
     * made with {@link #of}, only the thread that made it for one made with {@link #ofConfined}}
     *
     * @param thread the thread asked about
     */
    public boolean isAccessibleBy(Thread thread) {
        return confinedTo == null || confinedTo == thread;
    }

    /**
     * Reads at most one completion. Never blocks.
     *
     * @return {@link #EMPTY} when the queue had none, else the completion's status code
     *         ({@link #SUCCESS}, or the {@code ibv_wc_status} value that
     *         {@code completion().status()} names); its other fields are in
     *         {@link #completion()} until the next poll
     * @throws IllegalStateException if this object or its queue is closed
     * @throws RdmaException if the provider's poll failed
     */
    @Reaches("ibv_poll_cq")
    public int poll() {
        int n;
        // Confined to this thread: nothing it depends on can be destroyed under the call (Confinement).
        if (openOwner == Thread.currentThread()) {   // confined to this thread, and open
            n = bound ? BoundVerbs.pollCq(cqAddress, 1, wcAddress) : InlineVerbs.pollCq(pollFn, cqAddress, 1, wcAddress);
        } else if (confinedTo == null && enterSolo()) {
            try {
                n = bound ? BoundVerbs.pollCq(cqAddress, 1, wcAddress) : InlineVerbs.pollCq(pollFn, cqAddress, 1, wcAddress);
            } finally {
                exitSolo();
            }
        } else {
            n = pollCounted();
        }
        if (n <= 0) {
            return n == 0 ? EMPTY : failed(n);
        }
        int status = (int) INT.getOpaque(ADDRESS_SPACE, statusAddress);
        if (status != SUCCESS) {
            recordError();
        }
        Reference.reachabilityFence(wc);
        return status;
    }

    // Out of line: another thread is polling through this object, or it is closed (enter() throws),
    // or it is confined to another thread, or confined and closed.
    private int pollCounted() {
        if (confinedTo != null) {
            throw confinedTo != Thread.currentThread() ? Confinement.refusedCall(this, "poll")
                    : new IllegalStateException(this + " is closed");
        }
        enter();
        try {
            return bound ? BoundVerbs.pollCq(cqAddress, 1, wcAddress) : InlineVerbs.pollCq(pollFn, cqAddress, 1, wcAddress);
        } finally {
            exit();
        }
    }

    private int failed(int n) {
        // poll_cq has no errno; providers return a negative value (usually -errno).
        throw RdmaException.of(Verb.IBV_POLL_CQ, cq, -n);
    }

    private void recordError() {
        if (Events.errorCompletionsEnabled()) {
            Events.errorCompletion(cq, wc);
        }
    }

    /**
     * {@return the last completion polled: valid after a {@link #poll()} that returned a status,
     * until the next poll} Not thread-safe, as any {@code WorkCompletion}.
     */
    public WorkCompletion completion() {
        return wc;
    }

    /** {@return the completion queue this polls} */
    public CompletionQueue completionQueue() {
        return cq;
    }

    @Override
    protected void release() {
        // Nothing native: the completion view's memory is freed with the view.
    }

    @Override
    public String toString() {
        return description;
    }
}
