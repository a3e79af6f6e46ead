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

    /**
     * The constant for a C {@code enum ibv_mw_type} value, e.g. one read from a peer or a
     * configuration file.
     *
     * @param value 1 or 2
     * @return the constant
     * @throws IllegalArgumentException for any other value: verbs and the InfiniBand
     *         specification define window types 1 and 2 only (2A and 2B are both type 2 to
     *         verbs), so there is no type 3 for a provider to be asked about
     */
    public static MemoryWindowType of(int value) {
        return switch (value) {
            case 1 -> TYPE_1;
            case 2 -> TYPE_2;
            default -> throw new IllegalArgumentException("memory window type " + value
                    + " does not exist: enum ibv_mw_type has IBV_MW_TYPE_1 (1) and IBV_MW_TYPE_2 (2)");
        };
    }

    /** The value of the C enum constant. */
    int value() {
        return ordinal() + 1;   // IBV_MW_TYPE_1 = 1
    }
}
