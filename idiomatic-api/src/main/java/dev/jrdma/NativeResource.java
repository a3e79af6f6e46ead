// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.Uninterruptible;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;

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
 * <p>Thread safety: creating and closing resources is safe from any thread, also while other
 * threads post, poll or wait on the resource or on its dependents. Every native call on a
 * resource runs between {@link #enter()} and {@link #exit()}; {@code close()} marks the resource
 * closed, so that calls from then on throw {@link IllegalStateException}, and destroys the native
 * object only once the calls already inside it have returned. Without that, a CQ destroyed
 * while another thread is in {@code ibv_poll_cq} crashes the JVM (SIGSEGV in the provider).
 * The one exception is a resource confined to a thread (a prepared request made with
 * {@code ofConfined}): its calls take no guard, so only its thread may close it or anything it
 * depends on, and a close from another thread is refused before it changes anything
 * ({@link Confinement}).
 *
 * <p>Sealed: every permitted subclass is final or package-private, so no application can
 * subclass it or reach a protected member. Resources of the module's other packages (rdma_cm's)
 * take part by composition: each holds a {@link HostedResource} made through the module's
 * internal access bridge, so this package names none of their types.
 */
public abstract sealed class NativeResource implements RdmaResource
        permits NativeObject, Context, MemoryRegion, MulticastMembership, PreparedWork, PreparedPoll, PreparedExtendedSend,
                HostedResource {
    /** The sign bit of {@link #calls}: set once close() has begun. */
    private static final int CLOSED = Integer.MIN_VALUE;
    private static final VarHandle CALLS;
    private static final VarHandle SOLO;
    /** {@link #solo} while one call is inside through {@link #enterSolo()}. */
    private static final int SOLO_INSIDE = 1;
    /** {@link #solo} once close() has sealed it: no call enters it any more. */
    private static final int SOLO_SEALED = 2;
    /** Longer than any call made under enter() can take: blocking waits run in short slices. */
    private static final long DRAIN_TIMEOUT_NANOS = 30_000_000_000L;
    /**
     * How {@link #awaitQuiescent()} waits: the calls it waits out return within microseconds, so
     * it spins first, then parks in short steps (a virtual thread must not spin for long).
     */
    private static final WaitStrategy QUIESCENCE = new WaitStrategies.Backoff(1_000, 0, 50_000, 50_000);

    static {
        try {
            CALLS = MethodHandles.lookup().findVarHandle(NativeResource.class, "calls", int.class);
            SOLO = MethodHandles.lookup().findVarHandle(NativeResource.class, "solo", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * One word for the data path: the number of native calls inside the resource, with
     * {@link #CLOSED} in the sign bit. An entering call adds 1 and sees the closed bit in the same
     * atomic step, so no call can slip in between close()'s mark and its wait.
     */
    @SuppressWarnings("unused")   // through CALLS
    private volatile int calls;
    /**
     * A second word for the prepared objects' data path ({@link #enterSolo()}): 0 when no call is
     * inside through it, {@link #SOLO_INSIDE} while one is, {@link #SOLO_SEALED} once close() has
     * waited it out. A solo call costs one compare-and-set and one plain store, where
     * enter()/exit() cost two atomic adds: on a real CPU the second atomic was about half of
     * the ~9 ns a prepared post cost over C (issue 37's stub-provider gate).
     */
    @SuppressWarnings("unused")   // through SOLO
    private volatile int solo;
    /** The thread waiting in close() for the calls to drain; exit() wakes it. */
    private volatile Thread drainer;
    private final List<NativeResource> owners = new CopyOnWriteArrayList<>();
    /** Insertion-ordered, so closing in reverse closes the newest dependent first. */
    private final Set<NativeResource> dependents = new LinkedHashSet<>();
    private volatile boolean closed;
    /** Set once release() has returned; guarded by this. */
    private boolean released;
    /** The thread running close(), so that a re-entrant close from it does not wait for itself. */
    private Thread closer;
    /** The only thread that may call and close this resource, or null when any thread may ({@link Confinement}). */
    final Thread confinedTo;
    /**
     * The confined fast path's one test: {@link #confinedTo} while this resource is open, null from
     * the moment {@link #close()} marks it closed. A confined post or poll compares it with the
     * current thread: one load and one compare where the owner and the closed flag took two of
     * each (send_lat's loop makes four such calls an iteration;
     * research/notes/2026-11-28-send-lat-checks.md). Plain, not volatile: a thread that is not the
     * owner fails the compare whatever it reads (the field is only ever the owner or null), and
     * the owner reads its own write, since close() runs on the owner (Confinement refuses every
     * other thread while the owner lives).
     */
    Thread openOwner;

    /**
     * Registers this resource with each owner. Call this last in the subclass constructor path
     * (the native object already exists): if an owner was closed meanwhile, the caller must
     * release the native object it just created.
     *
     * @param owners the resources this one is made from (nulls and repeats are ignored)
     */
    protected NativeResource(NativeResource... owners) {
        this(null, owners);
    }

    /**
     * As {@link #NativeResource(NativeResource...)}, for a resource that only {@code confinedTo}
     * may use and close (null: any thread); see {@link Confinement}.
     */
    NativeResource(Thread confinedTo, NativeResource... owners) {
        this.confinedTo = confinedTo;
        this.openOwner = confinedTo;
        if (confinedTo != null) {
            Confinement.created();
        }
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
            if (confinedTo != null) {
                Confinement.released();
            }
            throw e;
        }
    }

    /** {@return the thread this resource is confined to, or null when any thread may use it} */
    final Thread confinedTo() {
        return confinedTo;
    }

    /** {@return the address of the native object, for matching events to objects; 0 if not applicable} */
    protected long nativeAddress() {
        return 0;
    }

    /** Releases the native resource; called once, after all dependents are closed. */
    protected abstract void release();

    /**
     * Called once by close(), right after the resource is marked closed and before anything is
     * released: wakes threads blocked on the resource, so that they see the mark and leave.
     */
    protected void closing() {
    }

    /** Throws {@link IllegalStateException} naming this object if it is closed. */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    /**
     * Begins a native call on this resource: throws {@link IllegalStateException} naming it if it
     * is closed, else keeps close() from destroying the native object until {@link #exit()}.
     * Allocation-free; always pair with {@code exit()} in a {@code finally}.
     */
    protected final void enter() {
        if ((int) CALLS.getAndAdd(this, 1) < 0) {
            throw enterClosed();
        }
    }

    /** Ends a call begun by {@link #enter()}. */
    protected final void exit() {
        if ((int) CALLS.getAndAdd(this, -1) == (CLOSED | 1)) {
            wakeDrainer();
        }
    }

    /**
     * Begins a call through the solo word, for objects that one thread usually calls at a time
     * (a prepared request, a prepared poll): true when this thread is now the only one inside
     * through it, and the resource stays unreleased until {@link #exitSolo()}. False when
     * another call is inside through it or close() has sealed it: the caller then takes
     * {@link #enter()}, which counts concurrent calls and throws once the resource is closed.
     * close() seals the word only when no solo call is inside, so a call that entered completes
     * on a live native object, as one that entered before close()'s mark does.
     */
    final boolean enterSolo() {
        return SOLO.compareAndSet(this, 0, SOLO_INSIDE);
    }

    /**
     * Ends a call begun by {@link #enterSolo()}: a release store, no atomic. Only the thread
     * inside writes the word until then (close() waits for 0 before sealing it), so a plain
     * store cannot lose an update, and release orders the call's native reads before it.
     */
    final void exitSolo() {
        SOLO.setRelease(this, 0);
    }

    // Out of line, as enterClosed(): exit() is inlined at every post and poll, twice where a
    // finally block has an exception path, and the compiled size of those methods decides
    // whether C2 inlines them into the caller's loop (InlineSmallCode).
    private void wakeDrainer() {
        Thread waiting = drainer;
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
    }

    // Out of line: keeps enter() small enough for the JIT to inline it into post and poll.
    private IllegalStateException enterClosed() {
        exit();
        return new IllegalStateException(this + " is closed");
    }

    /**
     * Enters every non-null resource of {@code resources} for a control-path call (it allocates),
     * e.g. a protection domain and its completion queues while a queue pair is created on them.
     *
     * @param resources the resources to enter; null entries are skipped
     * @return the calls begun, to close in a try-with-resources
     */
    static Hold hold(NativeResource... resources) {
        return Hold.enter(resources);
    }

    /**
     * Wraps the object a create verb returned, {@code created} (not NULL), destroying it again if
     * wrapping fails (an owner closed meanwhile, say), so that a failed create leaks nothing.
     *
     * @param <R>     the Java object's type
     * @param created the pointer the create verb returned
     * @param layout  the C struct behind the pointer, whose size the handle takes
     * @param wrap    the constructor of the Java object, given the sized handle
     * @param destroy the verb that destroys the native object
     * @return the Java object
     */
    protected static <R> R wrapCreated(MemorySegment created, MemoryLayout layout, Function<MemorySegment, R> wrap,
            Consumer<MemorySegment> destroy) {
        MemorySegment handle = created.reinterpret(layout.byteSize());
        try {
            return wrap.apply(handle);
        } catch (RuntimeException e) {
            destroy.accept(handle);
            throw e;
        }
    }

    /**
     * Waits until a moment when no call is inside this resource. Unlike the wait in close(), new
     * calls keep coming, so this samples the count until it reads 0; used where closing another
     * object must not free memory a call on this one may still read (a memory region's pages
     * during an inline post, an address handle during a UD post).
     */
    final void awaitQuiescent() {
        for (int empty = 1; (calls & ~CLOSED) != 0 || solo == SOLO_INSIDE; empty += empty < Integer.MAX_VALUE ? 1 : 0) {
            QUIESCENCE.idle(empty);
        }
    }

    @Override
    public final boolean isClosed() {
        return closed;
    }

    /**
     * Makes this resource depend on {@code owner} from now on (e.g. a memory window on the
     * region it is bound to), so closing {@code owner} closes this first.
     *
     * @param owner the resource this one now depends on
     */
    protected final void dependOn(NativeResource owner) {
        if (owners.contains(owner)) {
            return;
        }
        owner.adopt(this);
        owners.add(owner);
    }

    /**
     * Moves this resource from owner {@code from} to owner {@code to} (an rdma_cm id migrated to
     * another event channel): closing {@code to} closes it from now on, closing {@code from} no
     * longer does.
     *
     * @param from the owner it leaves
     * @param to   the owner it joins
     */
    protected final void moveOwner(NativeResource from, NativeResource to) {
        to.adopt(this);
        owners.add(to);
        owners.remove(from);
        from.forget(this);
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

    /** {@return the open dependents, oldest first} */
    protected final synchronized List<NativeResource> dependents() {
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
        Confinement.checkClose(this);
        List<NativeResource> toClose;
        synchronized (this) {
            if (closed) {
                awaitReleased();
                return;
            }
            // Again under the monitor: a confined dependent may have joined since the walk, and
            // adopt() refuses new ones from the moment the mark below is set.
            for (NativeResource dependent : dependents) {
                if (Confinement.isConfinedElsewhere(dependent, Thread.currentThread())) {
                    throw Confinement.refusedClose(this, dependent, Thread.currentThread());
                }
            }
            closed = true;
            openOwner = null;
            CALLS.getAndBitwiseOr(this, CLOSED);
            closer = Thread.currentThread();
            // Not cleared: each dependent leaves the set as it closes, so that while the newest
            // are closed the older ones stay visible (a memory region closed first waits for the
            // posts of the PD's still-open queue pairs; see ProtectionDomain.awaitPostsQuiescent).
            toClose = new ArrayList<>(dependents);
        }
        closing();
        RuntimeException failure = null;
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                try {
                    toClose.get(i).close();
                } catch (RuntimeException e) {
                    failure = chain(failure, e);
                }
            }
            awaitCallsDrained();
            NativeResource open = Confinement.stillOpen(toClose);
            if (open != null) {
                // Only a dependent confined to another thread refuses to close (one that joined a
                // dependent of this after the walk above): its thread may be posting to this
                // object, so leaking it is the safe choice.
                failure = chain(failure, new IllegalStateException(this + " is closed but was not destroyed: " + open
                        + " still depends on it"));
            } else {
                try {
                    release();
                } catch (RuntimeException e) {
                    failure = chain(failure, e);
                }
            }
        } finally {
            synchronized (this) {
                released = true;
                closer = null;
                notifyAll();
            }
            if (confinedTo != null) {
                Confinement.released();
            }
            for (NativeResource owner : owners) {
                owner.forget(this);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Waits until the native calls that entered before close() marked the resource have returned.
     * Calls on the data path return within microseconds; blocking waits (completion and rdma_cm
     * channels, async events) wait in slices and look at the mark between them.
     */
    private void awaitCallsDrained() {
        drainer = Thread.currentThread();
        long start = System.nanoTime();
        boolean interrupted = false;
        try {
            // A solo call holds no count: seal its word once it is out (a plain exit cannot wake us).
            while (!SOLO.compareAndSet(this, 0, SOLO_SEALED) && solo != SOLO_SEALED) {
                if (System.nanoTime() - start > DRAIN_TIMEOUT_NANOS) {
                    throw notDrained();
                }
                Thread.onSpinWait();
                LockSupport.parkNanos(this, 10_000);
            }
            while (((int) CALLS.getVolatile(this) & ~CLOSED) != 0) {
                if (System.nanoTime() - start > DRAIN_TIMEOUT_NANOS) {
                    throw notDrained();
                }
                LockSupport.parkNanos(this, 1_000_000);
                interrupted |= Thread.interrupted();
            }
        } finally {
            drainer = null;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // Leaking the native object is safe; destroying it under a running call is not.
    private IllegalStateException notDrained() {
        return new IllegalStateException(this + " is closed, but a native call on it has not returned"
                + " within " + DRAIN_TIMEOUT_NANOS / 1_000_000_000L + " s, so it was not destroyed"
                + " (was close() called from inside a call on it?)");
    }

    /** Waits (holding this monitor) until the closing thread has released the resource. */
    private void awaitReleased() {
        Uninterruptible.awaitWhile(() -> !released && closer != Thread.currentThread(), this::wait);
    }

    private static RuntimeException chain(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
