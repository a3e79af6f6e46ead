// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.internal.Uninterruptible;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps rclose from freeing an rsocket while another thread is inside a call on it.
 *
 * <p>Why: librdmacm frees the rsocket in rclose, and a concurrent rrecv or rpoll on the same
 * descriptor would then read freed memory (a crash, not an exception). Every native call on
 * the socket runs between {@link #begin} and {@link #end}; {@link #close} marks the socket
 * closed and waits for the calls in flight, which end quickly because jrdma's rsocket calls
 * never block natively (O_NONBLOCK, and rpoll only with timeout 0) and a waiting thread checks
 * the guard between pauses of at most {@link Rsockets#MAX_PAUSE_NANOS}.
 */
final class Guard {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private int inFlight;
    private volatile boolean closed;

    void begin() throws ClosedChannelException {
        lock.lock();
        try {
            if (closed) {
                throw new ClosedChannelException();
            }
            inFlight++;
        } finally {
            lock.unlock();
        }
    }

    void end() {
        lock.lock();
        try {
            if (--inFlight == 0) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Marks the socket closed and waits until no call is in flight; returns false if it was
     * closed already. The wait is bounded: each call in flight ends within a pause of a wait.
     */
    boolean close() {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            Uninterruptible.awaitWhile(() -> inFlight > 0, idle::await);
            return true;
        } finally {
            lock.unlock();
        }
    }
}
