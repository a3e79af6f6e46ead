// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.Collection;
import java.util.EnumSet;
import java.util.function.ToLongFunction;

/**
 * The C flag words of the enums whose constants are the bits of one ({@link Access},
 * {@link SendOp}, {@link WorkCompletionField}, {@link QpAttribute}): the word of a set of
 * constants, and the constants a word names. The enum keeps its bits; this reads them.
 */
final class CFlags {
    private CFlags() {}

    /** {@return the word with the bit of each constant of {@code constants} set} */
    static <E extends Enum<E>> long word(Collection<E> constants, ToLongFunction<E> bit) {
        long word = 0;
        for (E e : constants) {
            word |= bit.applyAsLong(e);
        }
        return word;
    }

    /** {@return the constants of {@code type} whose bit is set in {@code word}; bits of no constant are dropped} */
    static <E extends Enum<E>> EnumSet<E> constants(Class<E> type, long word, ToLongFunction<E> bit) {
        EnumSet<E> set = EnumSet.allOf(type);
        set.removeIf(e -> (word & bit.applyAsLong(e)) == 0);
        return set;
    }
}
