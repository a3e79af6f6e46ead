// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_cq;
import dev.jrdma.bindings.generated.ibv_modify_cq_attr;
import dev.jrdma.bindings.generated.ibv_moderate_cq;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.ExtendedPollVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.time.Duration;

/**
 * A completion queue ({@code struct ibv_cq}), from {@link Context#createCompletionQueue(int)}.
 * Closing it first closes the queue pairs that use it (the verbs refuse to destroy a CQ that a
 * QP still references).
 *
 * <p>Polling allocates nothing: completions are read into a {@link WorkCompletion} or
 * {@link WorkCompletions} the caller creates once and reuses. Thread safety: polling one CQ
 * from several threads is safe as far as libibverbs goes, but a {@code WorkCompletion} must
 * not be shared between threads.
 *
 * <p>{@link #toString()}: {@code completion queue handle <n> on <device>}.
 */
public final class CompletionQueue extends NativeObject {
    private final Context context;
    /** The handle as an address: libibverbs owns the struct until ibv_destroy_cq, no arena involved. */
    private final long address;
    /** Changed only by {@link #resize}. */
    private volatile int capacity;
    /** The provider's poll_cq and req_notify_cq, read from the ops table once. */
    private final MemorySegment pollFn;
    /** Whether the provider's poll_cq is the one BoundVerbs calls as a constant. */
    private final boolean pollBound;
    private final MemorySegment notifyFn;
    /** The completion channel the CQ was created on, or null. */
    private final CompletionChannel channel;

    private CompletionQueue(Context context, CompletionChannel channel, MemorySegment handle) {
        super(handle, "completion queue handle " + ibv_cq.handle(handle) + " on " + context.name(),
                context, channel);
        this.context = context;
        this.address = handle.address();
        this.capacity = ibv_cq.cqe(handle);
        this.pollFn = InlineVerbs.pollCqFunction(handle);
        this.pollBound = BoundVerbs.bindPollCq(pollFn);
        this.notifyFn = InlineVerbs.reqNotifyCqFunction(handle);
        this.channel = channel;
    }

    // Stub-provider seam, for tests and benchmarks in this package only: wraps a fake native object
    // that a test library built (no device, no libibverbs call). Never close the result: release()
    // would hand the fake to libibverbs.
    static CompletionQueue overStubProvider(Context context, MemorySegment handle) {
        return new CompletionQueue(context, null, handle);
    }

    /** Wraps a CQ that {@code ibv_create_cq_ex} created ({@link ExtendedCompletionQueue}); owned and destroyed as any other. */
    static CompletionQueue adopt(Context context, CompletionChannel channel, MemorySegment handle) {
        return new CompletionQueue(context, channel, handle);
    }

    static CompletionQueue create(Context context, int depth, CompletionChannel channel) {
        return create(context, depth, channel, 0);
    }

    /**
     * Refuses a completion vector the device does not have, naming device, value and range:
     * ibv_create_cq's EINVAL would not say which argument was wrong. Vector 0 is what every
     * queue gets by default, so it is taken without asking.
     */
    static void checkCompletionVector(Context context, int vector) {
        if (vector == 0) {
            return;
        }
        int vectors = context.completionVectors();
        if (vector < 0 || vector >= vectors) {
            throw new IllegalArgumentException("completion vector " + vector + " is out of range for " + context.name()
                    + ": it has " + vectors + (vectors == 1 ? " vector (0)" : " vectors (0 to " + (vectors - 1) + ")"));
        }
    }

    static CompletionQueue create(Context context, int depth, CompletionChannel channel, int vector) {
        checkCompletionVector(context, vector);
        if (depth < 1) {
            throw new IllegalArgumentException("a completion queue needs a depth of at least 1, not " + depth);
        }
        if (channel != null && channel.context() != context) {
            throw new IllegalArgumentException(channel + " belongs to another context than " + context);
        }
        try (Arena arena = Arena.ofConfined(); var _ = hold(context, channel)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment cq = ErrnoVerbs.ibv_create_cq(errno, context.handle(), depth, MemorySegment.NULL,
                    channel == null ? MemorySegment.NULL : channel.handle(), vector);
            if (cq.address() == 0) {
                int rc = Errno.get(errno);
                throw RdmaException.of(Verb.IBV_CREATE_CQ, context + ", depth " + depth
                        + (vector == 0 ? "" : ", completion vector " + vector), rc,
                        rc == Errno.EINVAL ? pastMaxCqe(context, depth) : null);
            }
            return wrapCreated(cq, ibv_cq.layout(), h -> new CompletionQueue(context, channel, h),
                    rdma_h::ibv_destroy_cq);
        }
    }

    /** The handle's address, the provider's poll_cq and whether BoundVerbs calls it: for {@link PreparedPoll}. */
    long address() {
        return address;
    }

    MemorySegment pollFunction() {
        return pollFn;
    }

    boolean pollBound() {
        return pollBound;
    }

    /** {@return the context the CQ belongs to} */
    public Context context() {
        return context;
    }

    /** {@return the number of completions the queue can hold (the provider may round the requested depth up)} */
    public int capacity() {
        return capacity;
    }

    /**
     * Arms the completion channel: the next completion (only solicited ones if
     * {@code solicitedOnly}) wakes {@link CompletionChannel#await}. One-shot: arm again after
     * each event. Needs a CQ created with a channel.
     *
     * @param solicitedOnly true to wake only for solicited completions
     */
    @Reaches("ibv_req_notify_cq")
    public void requestNotification(boolean solicitedOnly) {
        enter();
        int rc;
        try {
            rc = InlineVerbs.reqNotifyCq(notifyFn, address, solicitedOnly ? 1 : 0);
        } finally {
            exit();
        }
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_REQ_NOTIFY_CQ, this, rc);
        }
    }

    /**
     * Reads at most one completion into {@code wc}. Never blocks.
     *
     * @param wc the view to fill
     * @return 1 if there was a completion, else 0
     */
    @Reaches("ibv_poll_cq")
    public int poll(WorkCompletion wc) {
        long into = wc.address();
        int n;
        if (enterSolo()) {
            try {
                n = pollNow(1, into);
            } finally {
                exitSolo();
            }
        } else {
            n = pollCounted(1, into);
        }
        n = check(n);
        if (n > 0 && Events.errorCompletionsEnabled()) {
            Events.errorCompletion(this, wc);
        }
        Reference.reachabilityFence(wc);
        return n;
    }

    /**
     * Reads up to {@code batch.capacity()} completions into {@code batch}; returns how many
     * (also {@link WorkCompletions#count()}). Never blocks.
     *
     * @param batch the views to fill
     * @return the number of completions read, 0 when none
     */
    @Reaches("ibv_poll_cq")
    public int poll(WorkCompletions batch) {
        return poll(batch, batch.capacity());
    }

    /**
     * Reads up to {@code max} completions into {@code batch}: a poll size that changes between
     * calls (perftest's --cqe_poll and dynamic polling) without a batch per size. Never blocks.
     *
     * @param batch the views to fill
     * @param max   {@code 1 <= max <= batch.capacity()}
     * @return the number of completions read, 0 when none
     * @throws IndexOutOfBoundsException when {@code max} is outside those bounds
     */
    @Reaches("ibv_poll_cq")
    public int poll(WorkCompletions batch, int max) {
        if (max < 1 || max > batch.capacity()) {
            throw new IndexOutOfBoundsException("poll size " + max + " of " + this + ": the batch holds 1 to "
                    + batch.capacity());
        }
        int capacity = max;
        long into = batch.address();
        int n;
        if (enterSolo()) {
            try {
                n = pollNow(capacity, into);
            } finally {
                exitSolo();
            }
        } else {
            n = pollCounted(capacity, into);
        }
        n = check(n);
        batch.count(n);
        if (n > 0 && Events.errorCompletionsEnabled()) {
            Events.errorCompletions(this, batch, n);
        }
        Reference.reachabilityFence(batch);
        return n;
    }

    // A poll enters the CQ through its solo guard (one compare-and-set) when no other thread is
    // polling it at that moment, else through the counted guard (pollCounted): the usual
    // one-poller-per-CQ loop then pays one atomic instead of two (issue 37's stub-provider gate).
    private int pollNow(int max, long into) {
        return pollBound ? BoundVerbs.pollCq(address, max, into) : InlineVerbs.pollCq(pollFn, address, max, into);
    }

    // Out of line: another thread is polling this CQ, or it is closed (enter() throws).
    private int pollCounted(int max, long into) {
        enter();
        try {
            return pollNow(max, into);
        } finally {
            exit();
        }
    }

    /**
     * Polls until one completion is read into {@code wc} or {@code timeout} passes; returns
     * whether a completion arrived. Between empty polls it waits as {@link WaitStrategy#threadAware()}
     * does: a platform thread spins (the lowest latency, a CPU for the whole wait), a virtual
     * thread spins briefly, yields, then parks (on the completion channel, if the CQ was
     * created on one of its own), so that it never holds its carrier for long.
     *
     * @param wc      the view to fill
     * @param timeout how long to poll
     * @return whether a completion arrived
     */
    @Reaches("ibv_poll_cq")
    public boolean poll(WorkCompletion wc, Duration timeout) {
        return poll(wc, timeout, WaitStrategies.THREAD_AWARE);
    }

    /**
     * Polls until one completion is read into {@code wc} or {@code timeout} passes, waiting
     * between empty polls as {@code strategy} says; returns whether a completion arrived. A
     * strategy that parks may end the wait up to one park after {@code timeout}. An interrupt
     * does not end the wait; the thread's interrupt status is kept. Allocates nothing, except
     * what a virtual thread's timed park allocates in the JDK.
     *
     * <p>When the CQ was created on a {@link CompletionChannel} that serves it alone, and
     * {@code strategy} {@linkplain WaitStrategy#parks(int) parks}, the wait sleeps on the channel
     * instead of parking for a time: it requests notification, polls again (a completion that
     * arrived before the request raises no event), and sleeps until the channel's event, which
     * it reads and acknowledges; a virtual thread parks without holding its carrier, an idle
     * waiter costs no wake-ups, and the notification is never lost. Such a wait consumes the
     * channel's events, so no other thread may {@link CompletionChannel#await} the channel
     * meanwhile; a channel with several CQs is left to {@code await}, and a wait on one of its
     * CQs parks for a time. Sleeping allocates (the event's read, the poller's future).
     *
     * @param wc       the view to fill
     * @param timeout  how long to poll
     * @param strategy how to wait between empty polls, e.g. {@link WaitStrategy#busySpin()}
     * @return whether a completion arrived
     */
    @Reaches({"ibv_poll_cq", "ibv_req_notify_cq", "ibv_get_cq_event", "ibv_ack_cq_events"})
    public boolean poll(WorkCompletion wc, Duration timeout, WaitStrategy strategy) {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (poll(wc) != 0) {
            return true;
        }
        boolean interrupted = false;
        try {
            for (int empty = 1; System.nanoTime() - deadline <= 0; empty += empty < Integer.MAX_VALUE ? 1 : 0) {
                if (channel != null && strategy.parks(empty) && channel.claim(this)) {
                    try {
                        return sleepOnChannel(wc, deadline);
                    } finally {
                        channel.unclaim();
                    }
                }
                strategy.idle(empty);
                // A set interrupt status makes every park return at once, turning the wait into a spin.
                interrupted |= Thread.interrupted();
                if (poll(wc) != 0) {
                    return true;
                }
            }
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The rest of a wait, on the claimed channel: arm, poll (closing the race with a completion
     * that came before the arm), sleep until the event; again after an event that found nothing
     * (one left from an earlier arm). A close of the CQ wakes the sleep, and the poll throws.
     */
    private boolean sleepOnChannel(WorkCompletion wc, long deadline) {
        while (true) {
            requestNotification(false);
            if (poll(wc) != 0) {
                return true;
            }
            if (!channel.sleep(this, deadline)) {
                return poll(wc) != 0;
            }
            if (poll(wc) != 0) {
                return true;
            }
        }
    }

    /**
     * As {@link #poll(WorkCompletion, Duration)}, but a missing completion is an exception: returns
     * {@code wc} holding the completion, or throws {@link RdmaTimeoutException} after {@code timeout}.
     *
     * @param wc      the view to fill
     * @param timeout how long to poll
     * @return {@code wc}
     * @throws RdmaTimeoutException when no completion arrives in time
     */
    @Reaches("ibv_poll_cq")
    public WorkCompletion take(WorkCompletion wc, Duration timeout) {
        return take(wc, timeout, WaitStrategies.THREAD_AWARE);
    }

    /**
     * As {@link #poll(WorkCompletion, Duration, WaitStrategy)}, but a missing completion is an
     * exception: returns {@code wc} holding the completion, or throws {@link RdmaTimeoutException}
     * after {@code timeout}.
     *
     * @param wc       the view to fill
     * @param timeout  how long to poll
     * @param strategy how to wait between empty polls
     * @return {@code wc}
     * @throws RdmaTimeoutException when no completion arrives in time
     */
    @Reaches("ibv_poll_cq")
    public WorkCompletion take(WorkCompletion wc, Duration timeout, WaitStrategy strategy) {
        if (!poll(wc, timeout, strategy)) {
            throw new RdmaTimeoutException("no completion", this, timeout);
        }
        return wc;
    }

    /**
     * Changes the number of completions the queue holds ({@code ibv_resize_cq}); the provider
     * may round up, and refuses a size below the completions it holds now. {@link #capacity()}
     * reports the size granted.
     *
     * @param depth the completions the queue must hold
     */
    @Reaches("ibv_resize_cq")
    public void resize(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("a completion queue needs a depth of at least 1, not " + depth);
        }
        try (var _ = hold(this)) {
            int rc = rdma_h.ibv_resize_cq(handle, depth);
            if (rc != 0) {
                String why = null;
                if (rc == Errno.EINVAL) {
                    why = pastMaxCqe(context, depth);
                    if (why == null) {
                        // The one other EINVAL of rxe and mlx5: completions the queue still holds
                        // would not fit; the provider cannot drop them.
                        why = "it holds more than " + depth + " completions not yet polled: poll them first";
                    }
                }
                throw RdmaException.of(Verb.IBV_RESIZE_CQ, this + ", depth " + depth, rc, why);
            }
            capacity = ibv_cq.cqe(handle);
        }
    }

    /** The message detail when {@code depth} exceeds the device's {@code max_cqe}, else null; queried only on failure. */
    private static String pastMaxCqe(Context context, int depth) {
        int max = context.queryDevice().maxCqe();
        return depth > max ? "the device holds at most " + max + " completions per queue (max_cqe)" : null;
    }

    /**
     * Sets completion moderation ({@code ibv_modify_cq}): an event after {@code count}
     * completions or {@code periodMicros} microseconds, whichever comes first. The device's
     * limits are in {@link DeviceAttributes#maxCqModerationCount()}.
     *
     * @param count        completions per event (16 bits)
     * @param periodMicros microseconds per event (16 bits)
     * @throws OperationNotSupportedException when the provider has no moderation (librxe 44)
     */
    @Reaches("ibv_modify_cq")
    public void moderate(int count, int periodMicros) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment attr = modifyAttributes(arena, count, periodMicros);
            RdmaException.check(Verb.IBV_MODIFY_CQ, this, ExtendedPollVerbs.ibv_modify_cq(handle, attr));
        }
    }

    private static MemorySegment modifyAttributes(Arena arena, int count, int periodMicros) {
        if (count < 0 || count > 0xffff || periodMicros < 0 || periodMicros > 0xffff) {
            throw new IllegalArgumentException("moderation count " + count + " and period " + periodMicros
                    + " must fit 16 bits");
        }
        MemorySegment attr = arena.allocate(ibv_modify_cq_attr.layout());
        ibv_modify_cq_attr.attr_mask(attr, rdma_h.IBV_CQ_ATTR_MODERATE());
        MemorySegment moderate = ibv_modify_cq_attr.moderate(attr);
        ibv_moderate_cq.cq_count(moderate, (short) count);
        ibv_moderate_cq.cq_period(moderate, (short) periodMicros);
        return attr;
    }

    private int check(int n) {
        if (n < 0) {
            // poll_cq has no errno; providers return a negative value (usually -errno).
            throw RdmaException.of(Verb.IBV_POLL_CQ, this, -n);
        }
        return n;
    }

    @Override
    protected void closing() {
        if (channel != null) {
            channel.wakeSleeper(this);
        }
    }

    @Override
    @Reaches("ibv_destroy_cq")
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_CQ, this, rdma_h.ibv_destroy_cq(handle));
    }
}
