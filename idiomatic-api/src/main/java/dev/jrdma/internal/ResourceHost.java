// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

/**
 * What a resource of another package of the module (an rdma_cm id, event channel, device list
 * or multicast join) gives the core's lifetime rules: how to release its native object, and
 * what to wake when it begins to close. The core wraps it in a {@code NativeResource} of its own
 * ({@link CoreAccess#lifetime}), which owns, is owned, is held and closes as every other
 * resource does, without the core naming the type that hosts it: {@code dev.jrdma} builds
 * nothing on {@code dev.jrdma.cm}, and composition keeps it so at compile time too.
 *
 * <p>{@link Object#toString()} of the host is the text the resource's messages name it by
 * ({@code rdma_cm id 0x... is closed}).
 */
public interface ResourceHost {
    /** Releases the native object; called once, after everything that depends on it is closed. */
    void release();

    /** Called once when close() begins, before anything is released: wakes threads blocked on the resource. */
    default void closing() {
    }

    /**
     * {@return a host that releases with {@code release}, wakes with {@code closing} and takes
     * its text from {@code named}}
     */
    static ResourceHost of(Object named, Runnable release, Runnable closing) {
        return new ResourceHost() {
            @Override
            public void release() {
                release.run();
            }

            @Override
            public void closing() {
                closing.run();
            }

            @Override
            public String toString() {
                return named.toString();
            }
        };
    }
}
