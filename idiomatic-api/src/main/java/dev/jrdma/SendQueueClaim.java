// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Who holds a queue pair's send queue between {@code ibv_wr_start} and {@code ibv_wr_complete}
 * (or {@code ibv_wr_abort}): one word per queue pair, shared by every {@link ExtendedSendQueue}
 * batch and every {@link PreparedExtendedSend} post on it.
 *
 * <p>Why it exists: {@code wr_start} takes the provider's send queue spinlock and only
 * {@code wr_complete} or {@code wr_abort} releases it, and the {@code ibv_wr_*} downcalls are
 * critical (no thread-state transition). A second {@code wr_start} on the same queue pair while
 * the first section is open would spin in native code: forever when the section is the same
 * thread's (a batch left open, then a prepared post), and for the whole JVM when it is another
 * thread's, since a thread spinning in a critical downcall never reaches a safepoint, and the
 * holder, stopped at one, never releases the lock. So the section is claimed here, in Java,
 * before {@code wr_start}: the same thread is refused with {@link IllegalStateException}, another
 * thread waits here (spinning, then parking in short steps, up to 30 s) until it is free.
 *
 * <p>A free claim costs one compare-and-set and one release store. The holder is the thread's
 * id ({@link Thread#threadId()}, never reused while the JVM runs), not the {@code Thread}: a
 * reference stored into the heap carries the collector's write barrier (a card mark under
 * Serial, a pre- and post-barrier under G1) on every post.
 */
final class SendQueueClaim {
    private static final VarHandle HOLDER;
    /** Longer than any section a correct program keeps open; past it the wait gives up. */
    private static final long WAIT_NANOS = 30_000_000_000L;

    static {
        try {
            HOLDER = MethodHandles.lookup().findVarHandle(SendQueueClaim.class, "holder", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The id of the thread inside a wr_start..wr_complete section of the queue pair, or 0 (no thread has id 0). */
    @SuppressWarnings("unused")   // through HOLDER
    private volatile long holder;

    /**
     * Claims the send queue for one wr_start..wr_complete section of {@code qp}; pair with
     * {@link #release()} once the section ended (complete or abort).
     *
     * @throws IllegalStateException when this thread holds it already, or another thread held
     *                               it for 30 s
     */
    void claim(QueuePair qp) {
        long me = Thread.currentThread().threadId();
        if (!HOLDER.compareAndSet(this, 0L, me)) {
            claimContended(qp, me);
        }
    }

    // Out of line: the free claim above is all a post compiles in its loop.
    private void claimContended(QueuePair qp, long me) {
        long start = System.nanoTime();
        for (int spins = 0; ; spins++) {
            long now = holder;
            if (now == me) {
                throw new IllegalStateException("a wr_start..wr_complete section on " + qp + " is open in this thread"
                        + " (an ExtendedSendQueue batch not completed or aborted): a second ibv_wr_start would wait"
                        + " forever for the provider's send queue lock");
            }
            if (now == 0 && HOLDER.compareAndSet(this, 0L, me)) {
                return;
            }
            if (System.nanoTime() - start > WAIT_NANOS) {
                throw new IllegalStateException("thread id " + now + " has held the send queue of " + qp + " (an open extended post"
                        + " batch) for 30 s");
            }
            if (spins < 1_000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Ends the section {@link #claim} began. */
    void release() {
        HOLDER.setRelease(this, 0L);
    }
}
