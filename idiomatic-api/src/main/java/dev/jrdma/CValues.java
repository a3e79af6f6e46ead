// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.Arrays;
import java.util.function.ToIntFunction;

/**
 * The lookup from the value of a C enum constant to the Java enum constant that mirrors it,
 * shared by those enums: an array indexed by the C value (the values are small and dense), so
 * that a lookup on the data path (a completion's opcode) is one load and allocates nothing.
 *
 * @param <E> the Java enum
 */
final class CValues<E extends Enum<E>> {
    /** C values at or above this are not indexed; none of the mirrored enums has one. */
    private static final int LIMIT = 256;

    private final E[] byValue;
    private final E unknown;
    private final String name;

    /**
     * @param constants the enum's {@code values()}
     * @param value     a constant's C value; constants with a negative value (UNKNOWN) are not indexed
     * @param unknown   what a value without a constant maps to, or null to throw instead
     * @param name      the enum's name, for that exception
     */
    CValues(E[] constants, ToIntFunction<E> value, E unknown, String name) {
        byValue = Arrays.copyOf(constants, LIMIT);
        Arrays.fill(byValue, null);
        for (E e : constants) {
            int v = value.applyAsInt(e);
            if (v >= 0 && v < LIMIT) {
                byValue[v] = e;
            }
        }
        this.unknown = unknown;
        this.name = name;
    }

    /** The constant for {@code value}: the unknown constant, or IllegalArgumentException, if none. */
    E of(int value) {
        E e = value >= 0 && value < LIMIT ? byValue[value] : null;
        return e != null ? e : missing(value);
    }

    // Out of line so that of() stays small enough to inline on the data path.
    private E missing(int value) {
        if (unknown != null) {
            return unknown;
        }
        throw new IllegalArgumentException("unknown " + name + " value " + value);
    }
}
