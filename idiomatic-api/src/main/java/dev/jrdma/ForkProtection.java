// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;

/**
 * Whether registered memory survives a {@code fork()} of this process ({@code enum
 * ibv_fork_status}). The JVM forks whenever it starts a process ({@link ProcessBuilder}, via
 * posix_spawn or vfork): on old kernels the child's copy-on-write of pinned pages could leave
 * the parent's registration pointing at pages the parent no longer uses, unless libibverbs was
 * told first ({@link Rdma#initializeForkProtection()}, {@code ibv_fork_init}), which marks
 * registered pages MADV_DONTFORK. Kernels 5.13 and later keep pinned pages with the parent by
 * themselves ({@link #UNNEEDED}).
 */
public enum ForkProtection {
    /** Not initialised, and the kernel does not protect pinned pages by itself. */
    DISABLED,
    /** {@code ibv_fork_init} ran: registered pages are not shared with a child. */
    ENABLED,
    /** The kernel keeps pinned pages with the parent across fork: nothing to do. */
    UNNEEDED;

    static ForkProtection of(int value) {
        if (value == rdma_h.IBV_FORK_ENABLED()) {
            return ENABLED;
        }
        return value == rdma_h.IBV_FORK_UNNEEDED() ? UNNEEDED : DISABLED;
    }
}
