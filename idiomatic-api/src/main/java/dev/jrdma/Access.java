// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.EnumSet;
import java.util.Set;

/**
 * Access rights of a memory region or queue pair ({@code enum ibv_access_flags}). jrdma's
 * default is {@link #DEFAULT}, local write only: remote access is granted only when asked for.
 */
public enum Access {
    /** The local device may write the memory (needed to receive into it or as a READ/atomic target). */
    LOCAL_WRITE(1),
    /** Peers may RDMA WRITE into the memory (the verbs require LOCAL_WRITE with it). */
    REMOTE_WRITE(1 << 1),
    /** Peers may RDMA READ the memory. */
    REMOTE_READ(1 << 2),
    /** Peers may run atomic operations on the memory (the verbs require LOCAL_WRITE with it). */
    REMOTE_ATOMIC(1 << 3),
    /** Memory windows may be bound to the region. */
    MW_BIND(1 << 4),
    /** On-demand paging: pages are not pinned at registration. */
    ON_DEMAND(1 << 6),
    /** The memory is backed by huge pages. */
    HUGETLB(1 << 7),
    /** The device may reorder writes to this memory (optional: ignored where unsupported). */
    RELAXED_ORDERING(1 << 20);

    /** Least privilege: local write only. */
    public static final Set<Access> DEFAULT = java.util.Collections.unmodifiableSet(EnumSet.of(LOCAL_WRITE));

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    int bit() {
        return bit;
    }

    /** The C flag word for a set of rights. */
    static int flags(Set<Access> access) {
        return (int) CFlags.word(access, Access::bit);
    }

    /** The rights a C flag word grants (unknown bits are dropped). */
    static Set<Access> of(int flags) {
        return CFlags.constants(Access.class, flags, Access::bit);
    }
}
