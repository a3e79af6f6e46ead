// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.time.Duration;

/**
 * What a thread does between two polls that found nothing, in a wait that polls until something
 * arrives or a timeout passes ({@link CompletionQueue#take(WorkCompletion, Duration, WaitStrategy)}),
 * in the way of Agrona's {@code IdleStrategy}. A busy spin sees a completion soonest but holds
 * its CPU for the whole wait; a virtual thread that spins also holds its carrier, and with one
 * carrier per core a few spinning waiters stop every other virtual thread of the process,
 * including those whose messages they wait for. Backing off gives the CPU (or the carrier)
 * away, at the price of seeing the completion later.
 *
 * <p>The strategies are stateless: {@link #idle(int)} is told how many polls in a row have found
 * nothing, so one instance serves any number of threads and waits, and a wait allocates nothing
 * to back off (a virtual thread's timed park allocates the JDK's own wake-up task; a platform
 * thread's does not).
 *
 * <ul>
 * <li>{@link #busyPoll()}: nothing, the next poll follows at once, as perftest's loops poll;
 *     what jrdma's measurement loops use.
 * <li>{@link #busySpin()}: {@link Thread#onSpinWait()}; the lowest latency, a CPU (and carrier)
 *     for the whole wait.
 * <li>{@link #yielding()}: {@link Thread#yield()}. On a virtual thread, yielding alone is not a
 *     safe way to wait: a carrier runs the tasks of its local queue before anything submitted
 *     from outside, and a yielding virtual thread goes back to that queue when it is not empty,
 *     so a few waiters that yield in turn can keep their carriers from ever running the virtual
 *     threads an outside thread wakes (the rdma_cm and completion-channel waits, timed parks,
 *     threads started by a platform thread); research/notes/2026-11-26-yielding-virtual-threads.md.
 * <li>{@link #backoff(int, int, Duration, Duration)}: spins, then yields, then parks for a time
 *     that doubles from a minimum to a maximum. Doubling bounds the extra latency: a completion
 *     is seen at most about as late as the wait had already lasted, and an idle waiter costs
 *     one wake-up per maximum park.
 * <li>{@link #threadAware()}, the default of the waits that take no strategy: {@link #backoff()}
 *     on a virtual thread, {@link #busySpin()} on a platform thread (the lowest latency for a
 *     thread that owns its core). More waiting platform threads than cores should pass
 *     {@link #backoff()}: spinning ones starve each other and the kernel's own RDMA work
 *     (measured in docs/performance.md, "Many connections").
 * </ul>
 *
 * <p>A wait that uses a strategy checks its deadline between polls, so a park can end it at most
 * one park late; an interrupt does not end a wait (each is bounded) and is kept for the caller.
 * On a completion queue created with a {@link CompletionChannel} that serves it alone, a
 * strategy that {@linkplain #parks(int) parks} sleeps on the channel instead of timed parks: an
 * idle waiter then costs no wake-ups at all, and a virtual thread leaves its carrier until the
 * completion event.
 */
@FunctionalInterface
public interface WaitStrategy {
    /**
     * Waits a little, after {@code emptyPolls} polls in a row have found nothing.
     *
     * @param emptyPolls how many polls in a row found nothing, from 1; saturates at
     *                   {@link Integer#MAX_VALUE}
     */
    void idle(int emptyPolls);

    /**
     * Whether the step after {@code emptyPolls} empty polls would park, the moment a wait on a
     * completion queue with a {@link CompletionChannel} of its own stops polling and sleeps on
     * the channel instead: it requests notification, polls once more (a completion that arrived
     * before the request raises no event), then parks until the channel's event or the
     * deadline, with no wake-ups in between. The backoffs say yes once their spins and yields
     * are spent (and {@link #threadAware()} on a virtual thread); spinning and yielding never
     * park. A strategy that answers no is only asked to {@link #idle(int)}.
     *
     * @param emptyPolls how many polls in a row found nothing, from 1
     * @return true to sleep on the completion channel, when the CQ has one, rather than idle
     */
    default boolean parks(int emptyPolls) {
        return false;
    }

    /**
     * {@return the strategy that does nothing between polls}: the next poll follows at once, as in
     * perftest's measurement loops, where a pause would only delay seeing the completion.
     */
    static WaitStrategy busyPoll() {
        return WaitStrategies.BUSY_POLL;
    }

    /** {@return the strategy that spins with {@link Thread#onSpinWait()} between polls} */
    static WaitStrategy busySpin() {
        return WaitStrategies.BUSY_SPIN;
    }

    /** {@return the strategy that calls {@link Thread#yield()} between polls} */
    static WaitStrategy yielding() {
        return WaitStrategies.YIELDING;
    }

    /**
     * {@return the backoff the waits use on virtual threads}: 100 spins, 10 yields, then parks
     * from 10 µs doubling up to 10 ms (or, on a CQ with a completion channel of its own, one
     * park until the channel's event).
     * Under the Soft-RoCE emulator a round trip takes about a millisecond, so the first parks
     * cost little, and an idle waiter wakes about a hundred times a second.
     */
    static WaitStrategy backoff() {
        return WaitStrategies.BACKOFF;
    }

    /**
     * {@return a strategy that spins {@code spins} times, then yields {@code yields} times, then
     * parks for {@code minPark}, doubling each time up to {@code maxPark}}
     *
     * @param spins   how many {@link Thread#onSpinWait()} come first (0 for none)
     * @param yields  how many {@link Thread#yield()} come next (0 for none)
     * @param minPark the first park, at least 1 ns
     * @param maxPark the longest park, at least {@code minPark}
     */
    static WaitStrategy backoff(int spins, int yields, Duration minPark, Duration maxPark) {
        return WaitStrategies.Backoff.of(spins, yields, minPark, maxPark);
    }

    /**
     * {@return the default: {@link #backoff()} on a virtual thread, {@link #busySpin()} on a
     * platform thread}, decided at each idle step by the calling thread.
     */
    static WaitStrategy threadAware() {
        return WaitStrategies.THREAD_AWARE;
    }
}
