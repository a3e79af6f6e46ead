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
    /** Where the tests' messages start in their buffers: the bytes before it are never written. */
    private static final long BASE = 4096;

    @Test
    void theCheckFindsOneCorruptedByte() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = landed(arena, 4096, 2);
            assertEquals(-1, DataValidation.firstMismatch(buf, BASE, 4096, 2), "the pattern as written");
            assertEquals(0, DataValidation.firstMismatch(buf, BASE, 4096, 1), "another QP's pattern differs");
            buf.set(ValueLayout.JAVA_BYTE, BASE + 1234, (byte) (buf.get(ValueLayout.JAVA_BYTE, BASE + 1234) ^ 0x10));
            assertEquals(1234, DataValidation.firstMismatch(buf, BASE, 4096, 2), "one flipped bit");
            assertEquals(0, DataValidation.firstMismatch(buf, 0, 4096, 2), "memory never written is all zeros");
        }
    }

    @Test
    void theDebugLinesShowWhereAndWhatDiffers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = landed(arena, 64, 1);
            assertEquals("QP 1: bytes [4096, 4160) of the buffer, pattern 1 + (31 * offset + 17 * 1) % 251: 64 bytes "
                    + "checked, all as expected", DataValidation.describe(1, BASE, 64, -1));
            buf.set(ValueLayout.JAVA_BYTE, BASE + 20, (byte) 0);
            long at = DataValidation.firstMismatch(buf, BASE, 64, 1);
            assertEquals(20, at);
            assertTrue(DataValidation.describe(1, BASE, 64, at).endsWith("wrong at offset 20 after 20 good bytes"));
            String expected = DataValidation.window(buf, BASE, 64, 1, at, true);
            String found = DataValidation.window(buf, BASE, 64, 1, at, false);
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
            assertTrue(DataValidation.window(buf, BASE, 64, 1, 2, false).startsWith("found    offset 0:"),
                    "the window stays inside the message");
        }
    }

    /**
     * A buffer whose message of {@code length} bytes at {@link #BASE} holds QP {@code qp}'s
     * pattern, as its peer would have written it, with a page of untouched memory on either side.
     */
    private static MemorySegment landed(Arena arena, long length, int qp) {
        MemorySegment buf = arena.allocate(BASE + length + 4096);
        for (long j = 0; j < length; j++) {
            buf.set(ValueLayout.JAVA_BYTE, BASE + j, DataValidation.expected(qp, j));
        }
        return buf;
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
