// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_async_event;
import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.internal.Uninterruptible;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The thread that reads one context's asynchronous events ({@code ibv_get_async_event}) and
 * hands them to the {@link Context#onAsyncEvent} listeners; kept apart from {@link Context},
 * which holds the device's queries and factories.
 */
final class AsyncEventPump {
    /** How often the event thread looks at the close flag while no event arrives. */
    private static final long EVENT_POLL_MILLIS = 100;

    private final Context context;
    private final MemorySegment handle;
    private final List<Consumer<AsyncEvent>> listeners = new CopyOnWriteArrayList<>();
    private Thread eventThread;
    private volatile boolean stopEvents;

    AsyncEventPump(Context context, MemorySegment handle) {
        this.context = context;
        this.handle = handle;
    }

    /** Adds {@code listener}, starting the thread with the first one. */
    void add(Consumer<AsyncEvent> listener) {
        listeners.add(listener);
        synchronized (listeners) {
            if (eventThread == null) {
                eventThread = Thread.ofPlatform().daemon().name("jrdma-async-events-" + context.device().name())
                        .start(this::deliverEvents);
            }
        }
    }

    /** Stops the thread and waits until it is out of {@code ibv_get_async_event}; from the context's release. */
    void stop() {
        Thread events;
        synchronized (listeners) {
            stopEvents = true;
            events = eventThread;
        }
        if (events != null && events != Thread.currentThread()) {
            // The thread must be out of ibv_get_async_event before the context goes away.
            Uninterruptible.awaitWhile(events::isAlive, events::join);
        }
    }

    private void deliverEvents() {
        int fd = ibv_context.async_fd(handle.reinterpret(ibv_context.layout().byteSize()));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment event = arena.allocate(ibv_async_event.layout());
            while (!stopEvents) {
                // ibv_get_async_event blocks without a timeout: wait for the fd first, so that
                // closing the context can stop this thread within EVENT_POLL_MILLIS.
                if (!Posix.awaitReadable(fd, EVENT_POLL_MILLIS)) {
                    continue;
                }
                if (ErrnoVerbs.ibv_get_async_event(errno, handle, event) != 0) {
                    continue;   // another reader took it, or EINTR
                }
                AsyncEvent e;
                try {
                    e = describe(event);
                } finally {
                    // Acknowledge before the listeners run: the event is already resolved to
                    // Java objects, and an unacknowledged event would make closing its QP/CQ/SRQ
                    // (say, from a listener) wait forever in ibv_destroy_*.
                    rdma_h.ibv_ack_async_event(event);
                }
                Events.async(context, e);
                for (Consumer<AsyncEvent> listener : listeners) {
                    try {
                        listener.accept(e);
                    } catch (RuntimeException failure) {
                        System.getLogger(Context.class.getName()).log(System.Logger.Level.WARNING,
                                "async event listener failed on " + e, failure);
                    }
                }
            }
        }
    }

    private AsyncEvent describe(MemorySegment event) {
        AsyncEventType type = AsyncEventType.of(ibv_async_event.event_type(event));
        MemorySegment element = ibv_async_event.element(event);
        return switch (type) {
            case CQ_ERR -> new AsyncEvent(type, find(CompletionQueue.class,
                    ibv_async_event.element.cq(element).address()), 0);
            case SRQ_ERR, SRQ_LIMIT_REACHED -> new AsyncEvent(type, find(SharedReceiveQueue.class,
                    ibv_async_event.element.srq(element).address()), 0);
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                    new AsyncEvent(type, null, ibv_async_event.element.port_num(element));
            case DEVICE_FATAL, WQ_FATAL, UNKNOWN -> new AsyncEvent(type, null, 0);
            default -> new AsyncEvent(type, find(QueuePair.class, ibv_async_event.element.qp(element).address()), 0);
        };
    }

    /** The open object of {@code type} at native address {@code address}, searched through the graph. */
    private NativeResource find(Class<? extends NativeResource> type, long address) {
        List<NativeResource> pending = new ArrayList<>(context.dependents());
        while (!pending.isEmpty()) {
            NativeResource r = pending.removeLast();
            if (type.isInstance(r) && r.nativeAddress() == address) {
                return r;
            }
            pending.addAll(r.dependents());
        }
        return null;
    }
}
