// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * An asynchronous event of a device ({@code struct ibv_async_event}), delivered to the
 * listener given to {@link Context#onAsyncEvent}. It names the object it concerns: a queue
 * pair, completion queue or shared receive queue (empty if that object was closed meanwhile),
 * or a port.
 */
public final class AsyncEvent {
    private final AsyncEventType type;
    private final NativeResource object;
    private final int port;

    AsyncEvent(AsyncEventType type, NativeResource object, int port) {
        this.type = type;
        this.object = object;
        this.port = port;
    }

    /** {@return what happened} */
    public AsyncEventType type() {
        return type;
    }

    /** {@return the queue pair the event is about, for QP events} */
    public Optional<QueuePair> queuePair() {
        return object instanceof QueuePair qp ? Optional.of(qp) : Optional.empty();
    }

    /** {@return the completion queue the event is about, for {@link AsyncEventType#CQ_ERR}} */
    public Optional<CompletionQueue> completionQueue() {
        return object instanceof CompletionQueue cq ? Optional.of(cq) : Optional.empty();
    }

    /** {@return the shared receive queue the event is about, for SRQ events} */
    public Optional<SharedReceiveQueue> sharedReceiveQueue() {
        return object instanceof SharedReceiveQueue srq ? Optional.of(srq) : Optional.empty();
    }

    /** {@return the port the event is about, for port events} */
    public OptionalInt port() {
        return port > 0 ? OptionalInt.of(port) : OptionalInt.empty();
    }

    /** E.g. {@code PORT_ERR (port error) on port 1}. */
    @Override
    public String toString() {
        return type + " (" + type.description() + ")" + (port > 0 ? " on port " + port
                : object != null ? " on " + object : "");
    }
}
