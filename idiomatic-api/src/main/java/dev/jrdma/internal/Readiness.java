// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import static dev.jrdma.bindings.shim.Epoll.EPOLLIN;
import static dev.jrdma.bindings.shim.Epoll.EPOLLONESHOT;
import static dev.jrdma.bindings.shim.Epoll.EPOLL_CLOEXEC;
import static dev.jrdma.bindings.shim.Epoll.EPOLL_CTL_ADD;
import static dev.jrdma.bindings.shim.Epoll.EPOLL_CTL_DEL;

import dev.jrdma.Verb;
import dev.jrdma.bindings.shim.Epoll;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.internal.CoreAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Waits until a file descriptor (a completion channel's or an rdma_cm event channel's) is
 * readable, in the way that suits the calling thread.
 *
 * <p>A platform thread blocks in {@code poll(2)}, the lowest-latency wait. A virtual thread
 * must not: a thread inside a native call cannot unmount, so a blocking {@code poll} holds its
 * carrier for the whole wait, and with few carriers (the default is one per core) a handful of
 * waiting virtual threads stall every other one. A virtual thread instead registers the fd
 * (one-shot) with an epoll set that a single platform thread waits on, and parks on a future
 * the poller completes; parking in Java code unmounts the virtual thread, so a carrier serves
 * any number of waiters. The channels make their fds non-blocking (an event can be withdrawn
 * between the readiness and the read when its CQ or rdma_cm id is destroyed). A close from
 * another thread must end a wait promptly: a virtual thread's wait is ended by
 * {@link #wake(int)}, so it parks for its whole timeout without waking up in between (200 idle
 * waiters that each woke every 50 ms cost a fifth of a core on the host, and more than the
 * Soft-RoCE VM had); a platform thread's {@code poll} cannot be ended that way, so platform
 * threads wait in short slices ({@link #SLICE_MILLIS}) and look at the closed mark between them.
 */
public final class Readiness {
    private static final CoreAccess CORE = CoreAccess.get();

    private Readiness() {}

    /** The most events the poller takes from one epoll_wait. */
    private static final int BATCH = 64;

    /** The longest a platform thread waits before it looks at {@code stop} again. */
    public static final long SLICE_MILLIS = 50;
    /** Poller.INSTANCE once it exists: wake() reads this, as touching Poller would start it. */
    private static volatile Poller started;

    /**
     * Waits until {@code fd} is readable, {@code timeoutMillis} passes, or {@code stop} holds
     * (a close: the closer sets what {@code stop} reads, then calls {@link #wake(int)}).
     *
     * @return true when readable or woken (read non-blocking, and look at {@code stop}), false
     *         when the time passed or {@code stop} held before the wait began
     */
    public static boolean await(int fd, long timeoutMillis, BooleanSupplier stop) {
        if (!Thread.currentThread().isVirtual()) {
            return !stop.getAsBoolean() && Posix.awaitReadable(fd, Math.min(SLICE_MILLIS, timeoutMillis));
        }
        return Poller.INSTANCE.await(fd, timeoutMillis, stop);
    }

    /** Ends the wait of a virtual thread on {@code fd}, if there is one (see {@link #await}). */
    public static void wake(int fd) {
        Poller poller = started;
        if (poller != null) {
            CompletableFuture<Void> waiter = poller.byFd.get(fd);
            if (waiter != null) {
                waiter.complete(null);
            }
        }
    }

    /** The epoll set and the platform thread that waits on it; started on first use. */
    private static final class Poller {
        static final Poller INSTANCE = new Poller();

        private final int epfd;
        private final AtomicLong keys = new AtomicLong();
        private final Map<Long, CompletableFuture<Void>> waiters = new ConcurrentHashMap<>();
        /** The same futures by fd, for wake(); one waiter per fd (the channels see to that). */
        private final Map<Integer, CompletableFuture<Void>> byFd = new ConcurrentHashMap<>();

        private Poller() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment errno = Errno.allocate(arena);
                int fd = Epoll.create1(errno, EPOLL_CLOEXEC);
                if (fd < 0) {
                    throw CORE.exception(Verb.EPOLL_CREATE1, "the virtual-thread poller", Errno.get(errno));
                }
                this.epfd = fd;
            }
            Thread.ofPlatform().daemon().name("jrdma-fd-poller").start(this::run);
            started = this;
        }

        boolean await(int fd, long timeoutMillis, BooleanSupplier stop) {
            long key = keys.incrementAndGet();
            CompletableFuture<Void> ready = new CompletableFuture<>();
            waiters.put(key, ready);
            byFd.put(fd, ready);
            // After the put: a closer that set the mark before it is seen here, one after it finds the future.
            if (stop.getAsBoolean()) {
                byFd.remove(fd, ready);
                waiters.remove(key);
                return false;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment errno = Errno.allocate(arena);
                MemorySegment event = Epoll.allocateEvents(arena, 1);
                Epoll.setEvent(event, 0, EPOLLIN | EPOLLONESHOT, key);
                if (Epoll.ctl(errno, epfd, EPOLL_CTL_ADD, fd, event) != 0) {
                    throw CORE.exception(Verb.EPOLL_CTL_ADD, "fd " + fd, Errno.get(errno),
                            "is another thread waiting on the same channel?");
                }
                try {
                    if (timeoutMillis < 0) {
                        ready.get();
                    } else {
                        ready.get(timeoutMillis, TimeUnit.MILLISECONDS);
                    }
                    return true;
                } catch (TimeoutException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                } catch (ExecutionException e) {
                    throw new AssertionError("the poller never fails a waiter", e);
                } finally {
                    // One-shot registrations stay in the set, disabled, until deleted; ENOENT
                    // only if the fd was closed meanwhile (close removes it from every set).
                    if (Epoll.ctl(errno, epfd, EPOLL_CTL_DEL, fd, MemorySegment.NULL) != 0
                            && Errno.get(errno) != Errno.ENOENT) {
                        throw CORE.exception(Verb.EPOLL_CTL_DEL, "fd " + fd, Errno.get(errno));
                    }
                }
            } finally {
                waiters.remove(key);
                byFd.remove(fd, ready);
            }
        }

        /** Completes the future of every fd that became readable; never returns. */
        private void run() {
            Arena arena = Arena.ofConfined();
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment events = Epoll.allocateEvents(arena, BATCH);
            while (true) {
                int n = Epoll.wait(errno, epfd, events, BATCH, -1);
                if (n < 0) {
                    if (Errno.get(errno) == Errno.EINTR) {
                        continue;
                    }
                    throw CORE.exception(Verb.EPOLL_WAIT, "the virtual-thread poller", Errno.get(errno));
                }
                for (int i = 0; i < n; i++) {
                    long key = Epoll.eventData(events, i);
                    CompletableFuture<Void> waiter = waiters.get(key);
                    if (waiter != null) {   // null: the waiter timed out just before
                        waiter.complete(null);
                    }
                }
            }
        }
    }
}
