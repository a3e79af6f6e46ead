// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.ToIntFunction;

/**
 * The lookup from the value of a C enum constant to the Java enum constant that mirrors it,
 * shared by those enums, and the text libibverbs and librdmacm give such a value.
 *
 * <p>Most of the mirrored C enums are dense: their values run without a gap from the first
 * constant's, so a Java enum that declares its constants in the C order maps a value by
 * ordinal ({@link #dense}); ConstantsTest pins every constant to the generated header value.
 * The two with gaps (node type, completion opcode) keep a table ({@link #CValues(Enum[],
 * ToIntFunction, Enum, String)}): an array indexed by the C value, so that a lookup on the data
 * path (a completion's opcode) is one load and allocates nothing.
 *
 * @param <E> the Java enum
 */
public final class CValues<E extends Enum<E>> {
    /** C values at or above this are not indexed; none of the mirrored enums has one. */
    private static final int LIMIT = 256;

    // getEnumConstants() copies the array on every call; one copy per enum, read-only here.
    private static final ClassValue<Enum<?>[]> CONSTANTS = new ClassValue<>() {
        @Override
        protected Enum<?>[] computeValue(Class<?> type) {
            return (Enum<?>[]) type.getEnumConstants();
        }
    };

    private final E[] byValue;
    private final E unknown;
    private final String name;

    /**
     * @param constants the enum's {@code values()}
     * @param value     a constant's C value; constants with a negative value (UNKNOWN) are not indexed
     * @param unknown   what a value without a constant maps to, or null to throw instead
     * @param name      the enum's name, for that exception
     */
    public CValues(E[] constants, ToIntFunction<E> value, E unknown, String name) {
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
    public E of(int value) {
        E e = value >= 0 && value < LIMIT ? byValue[value] : null;
        return e != null ? e : missing(value, unknown, name);
    }

    /**
     * The constant of a dense enum for a C value.
     *
     * @param type    the Java enum, its constants in the C order
     * @param value   the C value
     * @param first   the C value of the first constant
     * @param unknown what a value outside the enum maps to, or null to throw instead
     * @return the constant
     * @throws IllegalArgumentException for a value outside the enum when {@code unknown} is null
     */
    public static <E extends Enum<E>> E dense(Class<E> type, int value, int first, E unknown) {
        Enum<?>[] constants = CONSTANTS.get(type);
        int ordinal = value - first;
        return ordinal >= 0 && ordinal < constants.length
                ? type.cast(constants[ordinal]) : missing(value, unknown, type.getSimpleName());
    }

    // Out of line so that of() stays small enough to inline on the data path.
    private static <E> E missing(int value, E unknown, String name) {
        if (unknown != null) {
            return unknown;
        }
        throw new IllegalArgumentException("unknown " + name + " value " + value);
    }

    /**
     * The text of a {@code *_str()} function of libibverbs or librdmacm.
     *
     * @param text     what the function returned: a C string, or NULL for a value it does not know
     * @param fallback the text for NULL
     */
    public static String text(MemorySegment text, String fallback) {
        return text.address() == 0 ? fallback : text.reinterpret(256).getString(0);
    }
}
