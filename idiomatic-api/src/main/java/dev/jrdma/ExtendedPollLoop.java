// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtendedPollVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The start, next and end poll of one {@link ExtendedCompletionQueue}, and the state of its raw
 * loop: whether a poll is open and a completion current, and whether the provider ended the
 * poll itself. Both ways of reading the queue go through it, so the end that must follow every
 * successful start is taken care of in one place, as is librxe's end inside an empty next_poll
 * (before rdma-core 55; see {@code ExtendedPollVerbs.nextPollReleasesOnEmpty}).
 */
final class ExtendedPollLoop {
    private final CompletionQueue cq;
    private final long address;
    private final ExtendedPollFunctions fn;
    private final boolean skipEndAfterEmptyNext;
    private final MemorySegment pollAttr;
    /** A raw loop is open: startPoll returned true and endPoll has not run. */
    private boolean polling;
    /** The raw loop has a current completion (the last start/next_poll found one). */
    private boolean current;
    /** next_poll found nothing on a provider whose next_poll already ended the poll. */
    private boolean endedByNext;

    ExtendedPollLoop(CompletionQueue cq, long address, ExtendedPollFunctions fn) {
        this.cq = cq;
        this.address = address;
        this.fn = fn;
        this.skipEndAfterEmptyNext = ExtendedPollVerbs.nextPollReleasesOnEmpty(fn.start());
        this.pollAttr = Arena.ofAuto().allocate(8, 8);   // struct ibv_poll_cq_attr { uint32_t comp_mask = 0; }
    }

    /** {@link ExtendedCompletionQueue#poll(ExtendedCompletions)}: a whole start-next-end into {@code batch}. */
    int poll(ExtendedCompletionQueue queue, ExtendedCompletions batch, long fieldMask) {
        int capacity = batch.capacity();
        int n = 0;
        cq.enter();
        try {
            requireNoRawLoop();
            int rc = ExtendedPollVerbs.startPoll(fn.start(), address, pollAttr.address());
            if (rc == Errno.ENOENT) {
                batch.count(0, fieldMask);
                return 0;
            }
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_START_POLL, cq, rc);
            }
            boolean end = true;
            int failed = 0;
            try {
                while (true) {
                    batch.read(queue, n++);
                    if (n == capacity) {
                        break;
                    }
                    rc = ExtendedPollVerbs.nextPoll(fn.next(), address);
                    if (rc != 0) {
                        end = !(rc == Errno.ENOENT && skipEndAfterEmptyNext);
                        failed = rc == Errno.ENOENT ? 0 : rc;
                        break;
                    }
                }
            } finally {
                if (end) {
                    ExtendedPollVerbs.endPoll(fn.end(), address);
                }
            }
            if (failed != 0) {
                throw RdmaException.of(Verb.IBV_NEXT_POLL, cq, failed);
            }
        } finally {
            cq.exit();
        }
        batch.count(n, fieldMask);
        return n;
    }

    /** {@link ExtendedCompletionQueue#startPoll()}. */
    boolean start() {
        cq.enter();
        boolean keep = false;
        try {
            requireNoRawLoop();
            int rc = ExtendedPollVerbs.startPoll(fn.start(), address, pollAttr.address());
            if (rc == Errno.ENOENT) {
                return false;
            }
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_START_POLL, cq, rc);
            }
            polling = true;
            current = true;
            endedByNext = false;
            keep = true;   // the call stays entered until endPoll: close() waits for it
            return true;
        } finally {
            if (!keep) {
                cq.exit();
            }
        }
    }

    /** {@link ExtendedCompletionQueue#nextPoll()}. */
    boolean next() {
        requireCurrent();
        int rc = ExtendedPollVerbs.nextPoll(fn.next(), address);
        if (rc == 0) {
            return true;
        }
        current = false;
        endedByNext = skipEndAfterEmptyNext && rc == Errno.ENOENT;
        if (rc != Errno.ENOENT) {
            throw RdmaException.of(Verb.IBV_NEXT_POLL, cq, rc);
        }
        return false;
    }

    /** {@link ExtendedCompletionQueue#endPoll()}. */
    void end() {
        if (!polling) {
            throw new IllegalStateException("endPoll() on " + cq + " without a successful startPoll()");
        }
        try {
            if (!endedByNext) {
                ExtendedPollVerbs.endPoll(fn.end(), address);
            }
        } finally {
            polling = false;
            current = false;
            cq.exit();
        }
    }

    /** Refuses to read a field outside a raw loop, or after a next_poll that found nothing. */
    void requireCurrent() {
        if (!current) {
            throw new IllegalStateException(polling ? "no current completion on " + cq + ": nextPoll() found none"
                    : "no completion is being read on " + cq + ": call startPoll() first");
        }
    }

    private void requireNoRawLoop() {
        if (polling) {
            throw new IllegalStateException("a startPoll() on " + cq + " has not been ended: call endPoll() first");
        }
    }
}
