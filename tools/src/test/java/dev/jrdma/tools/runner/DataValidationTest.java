// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            writePattern(buf, base, 4096, 2);
            assertEquals(-1, DataValidation.firstMismatch(buf, base, 4096, 2), "the pattern as written");
            assertEquals(0, DataValidation.firstMismatch(buf, base, 4096, 1), "another QP's pattern differs");
            buf.set(ValueLayout.JAVA_BYTE, base + 1234, (byte) (buf.get(ValueLayout.JAVA_BYTE, base + 1234) ^ 0x10));
            assertEquals(1234, DataValidation.firstMismatch(buf, base, 4096, 2), "one flipped bit");
            assertEquals(0, DataValidation.firstMismatch(buf, 0, 4096, 2), "memory never written is all zeros");
        }
    }

    @Test
    void theDebugLinesShowWhereAndWhatDiffers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(2 * 4096);
            long base = 4096;
            writePattern(buf, base, 64, 1);
            assertEquals("QP 1: bytes [4096, 4160) of the buffer, pattern 1 + (31 * offset + 17 * 1) % 251: 64 bytes "
                    + "checked, all as expected", DataValidation.describe(1, base, 64, -1));
            buf.set(ValueLayout.JAVA_BYTE, base + 20, (byte) 0);
            long at = DataValidation.firstMismatch(buf, base, 64, 1);
            assertEquals(20, at);
            assertTrue(DataValidation.describe(1, base, 64, at).endsWith("wrong at offset 20 after 20 good bytes"));
            String expected = DataValidation.window(buf, base, 64, 1, at, true);
            String found = DataValidation.window(buf, base, 64, 1, at, false);
            assertTrue(expected.startsWith("expected offset 12:"), expected);
            assertTrue(found.startsWith("found    offset 12:"), found);
            assertEquals(16, found.substring(found.indexOf(':') + 1).trim().split(" ").length, found);
            // bytes 12..27: the ninth (offset 20) is the zeroed one, the rest agree
            String[] e = expected.substring(expected.indexOf(':') + 1).trim().split(" ");
            String[] f = found.substring(found.indexOf(':') + 1).trim().split(" ");
            for (int i = 0; i < 16; i++) {
                assertEquals(i == 8, !e[i].equals(f[i]), i + ": " + expected + " / " + found);
            }
            assertEquals("00", f[8]);
            assertTrue(DataValidation.window(buf, base, 64, 1, 2, false).startsWith("found    offset 0:"),
                    "the window stays inside the message");
        }
    }

    /** Writes QP {@code qp}'s pattern into {@code length} bytes of {@code buf} from {@code base}, as its peer would. */
    private static void writePattern(MemorySegment buf, long base, long length, int qp) {
        for (long j = 0; j < length; j++) {
            buf.set(ValueLayout.JAVA_BYTE, base + j, DataValidation.expected(qp, j));
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
