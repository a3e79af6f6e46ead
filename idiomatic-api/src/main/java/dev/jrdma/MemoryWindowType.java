// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * How a memory window is bound and revoked ({@code enum ibv_mw_type}).
 */
public enum MemoryWindowType {
    /**
     * Bound and unbound with {@link QueuePair#bind} ({@code ibv_bind_mw}), usable through any
     * queue pair of its protection domain.
     */
    TYPE_1,
    /**
     * Bound with a {@link SendOpcode#BIND_MW} work request ({@link SendRequest#bind}) and
     * revoked by invalidation: {@link SendOpcode#LOCAL_INV} on the binding queue pair, or a
     * peer's {@link SendOpcode#SEND_WITH_INV}. Remote access through it is only accepted on
     * the queue pair that bound it (type 2B, what rxe and most devices implement).
     */
    TYPE_2;

    /** The value of the C enum constant. */
    int value() {
        return ordinal() + 1;   // IBV_MW_TYPE_1 = 1
    }
}
