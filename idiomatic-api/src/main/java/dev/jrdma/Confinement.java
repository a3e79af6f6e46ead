// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The close rule for resources confined to one thread (a prepared request made with
 * {@code ofConfined}), kept out of {@link NativeResource} because only those objects need it.
 *
 * <p>Why a rule and not a guard: a confined post takes no atomic. A guard that another thread's
 * close could wait out needs a store-load fence on the posting side (Dekker), and that fence is
 * what a shared prepared post pays: it waits for the previous post's WQE and completion stores
 * to drain, ~3 ns on a real CPU (bench/README.md). So, as for a confined {@code Arena}, only the
 * owner thread may close a confined resource, and a close from any other thread of the resource
 * or of anything it depends on (its queue, a region, their protection domain, the context) is
 * refused before anything changes. Once the owner thread has terminated it cannot be posting,
 * so any thread may close it.
 */
final class Confinement {
    private Confinement() {}

    /**
     * Confined resources created and not yet released; while 0, a close skips the walk of its
     * dependents. A count that is too high only costs a walk, so creation adds before anything
     * else and release subtracts last.
     */
    private static final AtomicInteger LIVE = new AtomicInteger();

    static void created() {
        LIVE.incrementAndGet();
    }

    static void released() {
        LIVE.decrementAndGet();
    }

    /**
     * Throws {@link WrongThreadException} if {@code resource} or any open resource that depends on
     * it is confined to a live thread other than the caller; called by close() before it changes
     * anything.
     */
    static void checkClose(NativeResource resource) {
        if (LIVE.get() == 0) {
            return;
        }
        Thread caller = Thread.currentThread();
        NativeResource confined = confinedElsewhere(resource, caller);
        if (confined != null) {
            throw refusedClose(resource, confined, caller);
        }
    }

    /**
     * The first open resource confined to a live thread other than {@code caller}: {@code
     * resource} itself or one of its dependents, at any depth. Each object's dependents are read
     * under its own monitor, one at a time, so this takes no two monitors at once.
     */
    static NativeResource confinedElsewhere(NativeResource resource, Thread caller) {
        if (resource.isClosed()) {
            return null;
        }
        if (isConfinedElsewhere(resource, caller)) {
            return resource;
        }
        for (NativeResource dependent : resource.dependents()) {
            NativeResource found = confinedElsewhere(dependent, caller);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** True when {@code resource} is open and confined to a live thread other than {@code caller}. */
    static boolean isConfinedElsewhere(NativeResource resource, Thread caller) {
        Thread owner = resource.confinedTo();
        return owner != null && owner != caller && !resource.isClosed() && owner.isAlive();
    }

    /**
     * The first of {@code dependents} still open after close() closed them, or null. Only a
     * dependent confined to another thread refuses to close, one that joined after the walk of
     * {@link #checkClose}; its owner may be posting to the resource being closed.
     */
    static NativeResource stillOpen(java.util.List<NativeResource> dependents) {
        for (NativeResource dependent : dependents) {
            if (!dependent.isClosed()) {
                return dependent;
            }
        }
        return null;
    }

    static WrongThreadException refusedClose(NativeResource closing, NativeResource confined, Thread caller) {
        String what = closing == confined ? String.valueOf(closing)
                : closing + ": " + confined + " depends on it and";
        return new WrongThreadException(what + " is confined to thread " + describe(confined.confinedTo())
                + ", so thread " + describe(caller) + " cannot close it; close it on its own thread first,"
                + " or prepare it with of(...) to share it between threads");
    }

    static WrongThreadException refusedCall(NativeResource confined, String call) {
        return new WrongThreadException(call + " of " + confined + " from thread " + describe(Thread.currentThread())
                + ": it is confined to thread " + describe(confined.confinedTo()));
    }

    private static String describe(Thread thread) {
        String name = thread.getName();
        return "'" + (name.isEmpty() ? thread.isVirtual() ? "virtual" : "unnamed" : name) + "' (id "
                + thread.threadId() + ")";
    }
}
