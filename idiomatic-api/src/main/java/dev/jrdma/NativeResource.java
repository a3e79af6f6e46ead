package dev.jrdma;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Base of every object that owns a native verbs resource, and the ownership graph between them.
 *
 * <ul>
 *   <li>A resource holds strong references to its owners (a memory region to its protection
 *       domain, a queue pair to its protection domain and completion queues, all of them to the
 *       context), so an owner cannot be collected while something built on it is reachable.</li>
 *   <li>Owners know their dependents. {@link #close()} first closes the dependents, newest
 *       first, because the verbs refuse to destroy a PD, CQ or context that is still in use
 *       (EBUSY), then releases the native resource.</li>
 *   <li>{@code close()} is idempotent and atomic: exactly one caller releases the resource.
 *       Every operation checks {@link #checkOpen()} first, so a closed object throws
 *       {@link IllegalStateException} naming it before any native code runs.</li>
 * </ul>
 *
 * <p>Thread safety: creating and closing resources is safe from any thread. Closing an object
 * while another thread is inside one of its operations is a race the caller must prevent (the
 * native call may already be running on the released resource).
 */
abstract class NativeResource implements RdmaResource {
    private final List<NativeResource> owners = new CopyOnWriteArrayList<>();
    /** Insertion-ordered, so closing in reverse closes the newest dependent first. */
    private final Set<NativeResource> dependents = new LinkedHashSet<>();
    private volatile boolean closed;
    /** Set once release() has returned; guarded by this. */
    private boolean released;
    /** The thread running close(), so that a re-entrant close from it does not wait for itself. */
    private Thread closer;

    /**
     * Registers this resource with each owner. Call this last in the subclass constructor path
     * (the native object already exists): if an owner was closed meanwhile, the caller must
     * release the native object it just created.
     */
    NativeResource(NativeResource... owners) {
        List<NativeResource> distinct = new ArrayList<>();
        for (NativeResource owner : owners) {
            if (owner != null && !distinct.contains(owner)) {
                distinct.add(owner);
            }
        }
        this.owners.addAll(distinct);
        List<NativeResource> adopted = new ArrayList<>();
        try {
            for (NativeResource owner : distinct) {
                owner.adopt(this);
                adopted.add(owner);
            }
        } catch (RuntimeException e) {
            adopted.forEach(owner -> owner.forget(this));
            throw e;
        }
    }

    /** The address of the native object, for matching events to objects; 0 if not applicable. */
    long nativeAddress() {
        return 0;
    }

    /** Releases the native resource; called once, after all dependents are closed. */
    abstract void release();

    /** Throws {@link IllegalStateException} naming this object if it is closed. */
    final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    /**
     * Makes this resource depend on {@code owner} from now on (e.g. a memory window on the
     * region it is bound to), so closing {@code owner} closes this first.
     */
    final void dependOn(NativeResource owner) {
        if (owners.contains(owner)) {
            return;
        }
        owner.adopt(this);
        owners.add(owner);
    }

    private synchronized void adopt(NativeResource dependent) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        dependents.add(dependent);
    }

    private synchronized void forget(NativeResource dependent) {
        dependents.remove(dependent);
    }

    /** The open dependents, oldest first (for tests and diagnostics). */
    final synchronized List<NativeResource> dependents() {
        return List.copyOf(dependents);
    }

    /**
     * Closes the dependents (newest first), then releases the native resource. Idempotent; a
     * failure to release is thrown after everything else has been closed, and the object counts
     * as closed either way. A close that finds another thread closing the object waits until it
     * is released, so that, e.g., a protection domain is never released before a region that
     * another thread is deregistering at the same moment.
     */
    @Override
    public final void close() {
        List<NativeResource> toClose;
        synchronized (this) {
            if (closed) {
                awaitReleased();
                return;
            }
            closed = true;
            closer = Thread.currentThread();
            toClose = new ArrayList<>(dependents);
            dependents.clear();
        }
        RuntimeException failure = null;
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                try {
                    toClose.get(i).close();
                } catch (RuntimeException e) {
                    failure = chain(failure, e);
                }
            }
            try {
                release();
            } catch (RuntimeException e) {
                failure = chain(failure, e);
            }
        } finally {
            synchronized (this) {
                released = true;
                closer = null;
                notifyAll();
            }
            for (NativeResource owner : owners) {
                owner.forget(this);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Waits (holding this monitor) until the closing thread has released the resource. */
    private void awaitReleased() {
        boolean interrupted = false;
        while (!released && closer != Thread.currentThread()) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static RuntimeException chain(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
