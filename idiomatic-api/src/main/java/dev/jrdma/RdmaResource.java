// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * An object that owns a native verbs resource: a context, protection domain, memory region,
 * completion queue or channel, queue pair, shared receive queue, address handle, memory window
 * or rdma_cm object. Closing it first closes what was built on it (a protection domain its
 * memory regions and queue pairs, a context everything), newest first, then releases the
 * native resource. After {@link #close()} every operation throws {@link IllegalStateException}
 * naming the object.
 */
public interface RdmaResource extends AutoCloseable {
    /** {@return whether {@link #close()} has been called} */
    boolean isClosed();

    /**
     * Closes what depends on this resource, then releases it. Idempotent; never throws a
     * checked exception.
     *
     * @throws RdmaException when the verbs refuse to release the resource (it still counts as closed)
     */
    @Override
    void close();
}
