// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.jrdma.bindings.generated.ibv_comp_channel;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.internal.Readiness;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A completion channel ({@code struct ibv_comp_channel}): lets a thread sleep until a
 * completion queue created on it ({@link Context#createCompletionQueue(int, CompletionChannel)})
 * has a completion, instead of spinning. The cycle is: {@link CompletionQueue#requestNotification},
 * {@link #await(Duration)}, then poll the CQ empty (and request notification again before the
 * last poll, so no completion slips between the two).
 *
 * <p>Closing the channel first closes the completion queues created on it. Events are
 * acknowledged as {@code await} returns them: {@code ibv_destroy_cq} waits forever for
 * unacknowledged events, and acknowledging at once rules that out. Thread safety: one thread
 * awaits at a time.
 *
 * <p>{@link #toString()}: {@code completion channel fd <n> on <device>}.
 */
public final class CompletionChannel extends NativeObject {
    private final Context context;
    private final int fd;
    /** The completion queue whose wait sleeps on this channel now ({@link #claim}); null when none. */
    private final AtomicReference<CompletionQueue> sleeper = new AtomicReference<>();

    private CompletionChannel(Context context, MemorySegment handle) {
        super(handle, "completion channel fd " + ibv_comp_channel.fd(handle) + " on " + context.name(),
                context);
        this.context = context;
        this.fd = ibv_comp_channel.fd(handle);
        Posix.setNonBlocking(fd);
    }

    static CompletionChannel create(Context context) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment channel = RdmaException.checkCreated(Verb.IBV_CREATE_COMP_CHANNEL, context, errno,
                    ErrnoVerbs.ibv_create_comp_channel(errno, context.handle()));
            return wrapCreated(channel, ibv_comp_channel.layout(), h -> new CompletionChannel(context, h),
                    rdma_h::ibv_destroy_comp_channel);
        }
    }

    /** {@return the context the channel belongs to} */
    public Context context() {
        return context;
    }

    /**
     * Waits up to {@code timeout} for a completion event and returns the completion queue it is
     * for (its notification is then disarmed: request it again). A virtual thread parks while
     * it waits, leaving its carrier free (see {@link Readiness}).
     *
     * @param timeout how long to sleep at most
     * @return the completion queue the event is for
     * @throws RdmaTimeoutException when no event arrives in time
     */
    @Reaches({"ibv_get_cq_event", "ibv_ack_cq_events"})
    public CompletionQueue await(Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        try (var _ = hold(this)) {
            // A close() from another thread waits for this call to leave, so it wakes the wait
            // (closing()), which then sees the closed mark.
            while (true) {
                long left = Math.max(0, (deadline - System.nanoTime() + 999_999) / 1_000_000L);
                if (Readiness.await(fd, left, this::isClosed)) {
                    CompletionQueue cq = next();
                    if (cq != null) {
                        return cq;
                    }
                }
                if (isClosed()) {
                    throw new IllegalStateException(this + " was closed while a thread awaited it");
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new RdmaTimeoutException("no completion event", this, timeout);
                }
            }
        }
    }

    /**
     * Claims the channel for a wait of {@code cq} ({@link CompletionQueue#poll(WorkCompletion,
     * Duration, WaitStrategy)}): only when {@code cq} is the one completion queue on the channel
     * and no other such wait sleeps on it, since a wait that read another queue's event would
     * take that queue's wake-up away. Release with {@link #unclaim}.
     *
     * @return whether the wait may sleep on this channel
     */
    boolean claim(CompletionQueue cq) {
        if (!sleeper.compareAndSet(null, cq)) {
            return false;
        }
        List<NativeResource> queues = dependents();
        if (queues.size() != 1 || queues.getFirst() != cq) {
            sleeper.set(null);
            return false;
        }
        return true;
    }

    /** Ends a {@link #claim}. */
    void unclaim() {
        sleeper.set(null);
    }

    /**
     * Sleeps until the claimed completion queue's event arrives (read and acknowledged), the
     * deadline passes, or the queue or the channel is closed; a virtual thread parks (see
     * {@link Readiness}). The caller has requested notification and polled since.
     *
     * @param deadline as {@link System#nanoTime()}
     * @return false when the deadline passed, true otherwise (poll: a completion, or a closed queue)
     */
    boolean sleep(CompletionQueue cq, long deadline) {
        boolean interrupted = false;
        try (var _ = hold(this)) {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                // An interrupt would end every park at once; the wait keeps it for the caller instead.
                interrupted |= Thread.interrupted();
                if (Readiness.await(fd, (left + 999_999) / 1_000_000L, () -> isClosed() || cq.isClosed())
                        && next() == cq) {
                    return true;
                }
                if (isClosed() || cq.isClosed()) {
                    return true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Wakes the wait sleeping on this channel for {@code cq}, if there is one: {@code cq} is being closed. */
    void wakeSleeper(CompletionQueue cq) {
        if (sleeper.get() == cq) {
            Readiness.wake(fd);
        }
    }

    /**
     * Reads and acknowledges one event; null when there was none to read after all (the fd is
     * non-blocking: an event vanishes between poll and read when its CQ is destroyed meanwhile)
     * or when its CQ was closed after the event arrived.
     */
    private CompletionQueue next() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment cqOut = arena.allocate(ADDRESS);
            MemorySegment contextOut = arena.allocate(ADDRESS);
            if (ErrnoVerbs.ibv_get_cq_event(errno, handle, cqOut, contextOut) != 0) {
                if (Errno.get(errno) == Errno.EAGAIN) {
                    return null;
                }
                throw RdmaException.of(Verb.IBV_GET_CQ_EVENT, this, Errno.get(errno));
            }
            MemorySegment cq = cqOut.get(ADDRESS, 0);
            rdma_h.ibv_ack_cq_events(cq, 1);
            for (NativeResource r : dependents()) {
                if (r instanceof CompletionQueue q && q.nativeAddress() == cq.address()) {
                    return q;
                }
            }
            // The CQ was closed after the event arrived: nothing is left to report.
            return null;
        }
    }

    @Override
    protected void closing() {
        Readiness.wake(fd);
    }

    @Override
    @Reaches("ibv_destroy_comp_channel")
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_COMP_CHANNEL, this, rdma_h.ibv_destroy_comp_channel(handle));
    }
}
