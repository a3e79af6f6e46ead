// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Who holds a queue pair's send queue between {@code ibv_wr_start} and {@code ibv_wr_complete}
 * (or {@code ibv_wr_abort}): one word per queue pair, shared by every {@link ExtendedSendQueue}
 * batch and every {@link PreparedExtendedSend} post on it; and, when a thread has taken the send
 * queue for itself ({@link ExtendedSendQueue#ownSendQueue()}), which thread that is.
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
 *
 * <p><b>An owned send queue.</b> A thread that posts alone on a queue pair takes it once
 * ({@link #own}): the holder word then stays that thread's id, so every other thread's claim
 * fails its compare-and-set and is refused at once ({@link WrongThreadException} naming the
 * owner), and the owner's claims test one plain field instead: {@link #idleOwner}, the owner while
 * it has no section open (its prepared posts test {@link #ready}, below). A claim that finds it
 * equal to its thread lets the section call {@code wr_start} with no
 * atomic instruction: no other thread can be inside a section (they are refused), and this thread
 * is not (a batch of its own clears the field from {@code start} to {@code complete}, and the
 * one-call post runs no Java between {@code wr_start} and {@code wr_complete}). Once the owner has
 * ended, the next claim of another thread gives the send queue back to all (the contended path),
 * unless the owner ended inside a section: then the provider's lock is held for good and every
 * claim is refused.
 *
 * <p><b>Ready: the refusal word and the claim in one compare.</b> The owner's prepared post
 * compares one word, {@link #ready}, with its thread ({@link #isReady}), in place of two tests:
 * the queue pair's refusal word ({@code QueuePair.refused & NO_SEND}) and {@link #idleOwner}.
 * {@code ready} is the owner while it has no section open and the queue pair took sends when the
 * owner last looked, else null (or an ended owner, which no live thread equals). Only the owner
 * sets it to itself ({@link #arm}, after a claimed post of its own: the first post after
 * {@link #own}, after a batch, after a refusal), and only when it is idle; every other write
 * clears it: the owner opening a section ({@link #claim}), {@link #disown}, and every transition
 * that refuses sends ({@link #sendsRefused}, called by {@code QpConnector.setState} right after it
 * wrote the refusal word). Why the compare is as good as the refusal test it replaces, for a post
 * that a transition to a refusing state happened-before (a later toError() in another thread
 * that this thread synchronized with, or one of its own): both words are volatile, so their
 * accesses have one total order that respects each thread's program order. The transition writes
 * the refusal word, then clears {@code ready}; so the post, reading after the clear, finds the
 * owner there only if the owner set it after the clear. But {@link #arm} sets it and then reads
 * the refusal word (a volatile store, then a load: the store is not left waiting in the store
 * buffer past the load), all before this post in the owner's program order, and that read comes
 * after the transition's write, so it saw the refusal and cleared {@code ready} again. Posts that
 * race with a transition may go either way, as they may with the refusal word read directly.
 * A prepared request over caller memory compares {@link #NEVER_READY} instead, so that its posts
 * still test the caller's arena (then this word, in place of the claim).
 */
final class SendQueueClaim {
    private static final VarHandle HOLDER;
    private static final VarHandle OWNER;
    private static final VarHandle READY;
    /**
     * A word that is never ready (nothing arms it): the one a prepared post over caller memory
     * compares, so that it always takes the path that tests the caller's arena.
     */
    static final SendQueueClaim NEVER_READY = new SendQueueClaim();
    /** Longer than any section a correct program keeps open; past it the wait gives up. */
    private static final long WAIT_NANOS = 30_000_000_000L;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HOLDER = lookup.findVarHandle(SendQueueClaim.class, "holder", long.class);
            OWNER = lookup.findVarHandle(SendQueueClaim.class, "owner", Thread.class);
            READY = lookup.findVarHandle(SendQueueClaim.class, "ready", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The id of the thread inside a wr_start..wr_complete section of the queue pair, or of the
     * owner for as long as there is one; 0 when free (no thread has id 0).
     */
    @SuppressWarnings("unused")   // through HOLDER
    private volatile long holder;
    /** The thread the send queue belongs to, or null: set after {@link #holder} took its id, cleared before it is freed. */
    private volatile Thread owner;
    /**
     * The owner while it has no section open, else null (or a dead owner, left after a take-over:
     * no live thread equals it). Plain: while the owner lives only it writes the field, so only
     * the owner can read itself here; another thread reads it only after
     * {@link Thread#isAlive()} returned false for the owner, which orders the owner's writes first.
     */
    private Thread idleOwner;
    /**
     * {@link #idleOwner} while the queue pair takes sends, else null: only the owner sets it (to
     * itself), every other write clears it (the class comment says why one compare of it is as
     * good as the refusal word's test and the idle owner's).
     */
    private volatile Thread ready;

    /**
     * Whether {@code thread} owns the send queue, has no section open, and the queue pair took
     * sends when it last looked: then its one-call post may run {@code wr_start..wr_complete}
     * without the refusal word's test and without {@link #claim} (see the class comment).
     */
    boolean isReady(Thread thread) {
        return ready == thread;
    }

    /**
     * After a claimed post of the owner, idle again: lets its next posts pass on {@link #isReady}
     * unless the queue pair refuses sends. A volatile store and then the load of the refusal word
     * (the class comment's argument); once per claimed post, not per post.
     */
    void arm(QueuePair qp) {
        Thread me = Thread.currentThread();
        if (idleOwner != me) {
            return;
        }
        ready = me;
        if ((qp.refused & QueuePair.NO_SEND) != 0) {
            ready = null;
        }
    }

    /** The queue pair refuses sends from now: called after the refusal word was written. */
    void sendsRefused() {
        ready = null;
    }

    /**
     * Claims the send queue for one wr_start..wr_complete section of {@code qp}; pair with
     * {@link #release()} once the section ended (complete or abort).
     *
     * @throws IllegalStateException when this thread holds it already, another thread held it for
     *                               30 s, or its owner ended inside a section
     * @throws WrongThreadException  when it belongs to another thread, which is alive
     */
    void claim(QueuePair qp) {
        Thread me = Thread.currentThread();
        if (idleOwner == me) {
            idleOwner = null;   // the owner opens a section: no atomic instruction
            READY.setOpaque(this, (Thread) null);   // only the owner reads itself there: program order is enough
            return;
        }
        if (!HOLDER.compareAndSet(this, 0L, me.threadId())) {
            claimContended(qp, me);
        }
    }

    // Out of line: the free claim above is all a post compiles in its loop.
    private void claimContended(QueuePair qp, Thread me) {
        long id = me.threadId();
        long start = System.nanoTime();
        for (int spins = 0; ; spins++) {
            long now = holder;
            Thread o = owner;
            if (o == me || (o == null && now == id)) {
                throw new IllegalStateException("a wr_start..wr_complete section on " + qp + " is open in this thread"
                        + " (an ExtendedSendQueue batch not completed or aborted): a second ibv_wr_start would wait"
                        + " forever for the provider's send queue lock");
            }
            if (o != null) {
                giveBackFromEnded(qp, o);   // throws while o lives
                continue;
            }
            if (now == 0 && HOLDER.compareAndSet(this, 0L, id)) {
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

    /** The send queue belongs to {@code o}, not this thread: refused while {@code o} lives, else given back to all. */
    private void giveBackFromEnded(QueuePair qp, Thread o) {
        if (o.isAlive()) {
            throw new WrongThreadException("the send queue of " + qp + " belongs to thread '" + o.getName() + "' (id "
                    + o.threadId() + ", ExtendedSendQueue.ownSendQueue()): no other thread may post on it while that"
                    + " thread runs");
        }
        // o ended: isAlive() ordered its last writes before this read. idleOwner is left as it is, so that a
        // second thread racing here reads the same and one compare-and-set below decides.
        if (idleOwner != o) {
            throw new IllegalStateException("thread '" + o.getName() + "' owned the send queue of " + qp + " and ended"
                    + " inside a wr_start..wr_complete section (a batch never completed): the provider's send queue lock"
                    + " is still held, so no ibv_wr_start can run on this queue pair again");
        }
        if (OWNER.compareAndSet(this, o, null)) {
            ready = null;
            HOLDER.setRelease(this, 0L);
        }
    }

    /** Ends the section {@link #claim} began. */
    void release() {
        Thread me = Thread.currentThread();
        if (owner == me) {
            idleOwner = me;   // the owner keeps the holder word
        } else {
            HOLDER.setRelease(this, 0L);
        }
    }

    /**
     * Gives the send queue to the calling thread until {@link #disown} or its end (see the class
     * comment). Nothing changes when it owns it already.
     *
     * @throws IllegalStateException when this thread has a section open, or the claim fails as {@link #claim} says
     * @throws WrongThreadException  when another live thread owns it
     */
    void own(QueuePair qp) {
        Thread me = Thread.currentThread();
        if (owner == me) {
            return;
        }
        claim(qp);   // waits for another thread's section, takes over from an ended owner
        idleOwner = me;
        owner = me;
    }

    /**
     * Gives an owned send queue back to all: by its owner with no section open, or by any thread
     * once the owner ended (outside a section). Nothing changes when it has no owner.
     *
     * @throws WrongThreadException  when another live thread owns it
     * @throws IllegalStateException when the owner has a section open
     */
    void disown(QueuePair qp) {
        Thread me = Thread.currentThread();
        Thread o = owner;
        if (o == null) {
            return;
        }
        if (o != me) {
            giveBackFromEnded(qp, o);
            return;
        }
        if (idleOwner != me) {
            throw new IllegalStateException("a wr_start..wr_complete section on " + qp + " is open in this thread:"
                    + " complete or abort the batch before giving the send queue back");
        }
        ready = null;
        idleOwner = null;
        owner = null;
        HOLDER.setRelease(this, 0L);
    }

    /** {@return the thread that owns the send queue, or null} */
    Thread owner() {
        return owner;
    }
}
