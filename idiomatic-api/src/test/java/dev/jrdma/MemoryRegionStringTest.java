// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Text in and out of a registered region in one call, on the stub provider (no device). */
class MemoryRegionStringTest {
    @Test
    void putStringWritesUtf8WithoutNulAndReturnsTheLengthToSend() {
        MemoryRegion mr = StubProvider.open(4, 64).mr();
        mr.segment().fill((byte) 0x7f);
        assertEquals(13, mr.putString(8, "Hello, RDMA! "));
        assertEquals('H', (char) mr.segment().get(JAVA_BYTE, 8));
        assertEquals((byte) 0x7f, mr.segment().get(JAVA_BYTE, 8 + 13), "no NUL after the text");
        assertEquals("Hello, RDMA! ", mr.getString(8, 13));
        assertEquals(4, mr.putString(0, "σμ"), "UTF-8: two bytes per Greek letter");
        assertEquals("σμ", mr.getString(0, 4));
        assertEquals("", mr.getString(64, 0));
    }

    @Test
    void textThatDoesNotFitNamesTheRangeAndTheRegion() {
        MemoryRegion mr = StubProvider.open(4, 64).mr();
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> mr.putString(60, "hello"));
        assertTrue(e.getMessage().startsWith("[60, 65) is outside memory region"), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> mr.getString(-1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> mr.getString(63, 2));
    }
}
