// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** --data_validation's pattern and check, on memory the test writes (no device). */
class DataValidationTest {
    @Test
    void theCheckFindsOneCorruptedByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(3 * 4096);
            long base = 4096;
            for (long j = 0; j < 4096; j++) {
                buf.set(ValueLayout.JAVA_BYTE, base + j, DataValidation.expected(2, j));
            }
            assertEquals(-1, DataValidation.firstMismatch(buf, base, 4096, 2), "the pattern as written");
            assertEquals(0, DataValidation.firstMismatch(buf, base, 4096, 1), "another QP's pattern differs");
            buf.set(ValueLayout.JAVA_BYTE, base + 1234, (byte) (buf.get(ValueLayout.JAVA_BYTE, base + 1234) ^ 0x10));
            assertEquals(1234, DataValidation.firstMismatch(buf, base, 4096, 2), "one flipped bit");
            assertEquals(0, DataValidation.firstMismatch(buf, 0, 4096, 2), "memory never written is all zeros");
        }
    }

    @Test
    void thePatternIsNeverZeroAndShiftsWithTheOffset() {
        for (int q = 0; q < 64; q++) {
            for (long j = 0; j < 65_536; j++) {
                assertNotEquals(0, DataValidation.expected(q, j));
                assertNotEquals(DataValidation.expected(q, j), DataValidation.expected(q, j + 1));
            }
        }
    }
}
