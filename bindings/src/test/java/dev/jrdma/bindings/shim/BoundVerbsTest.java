// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The binding rule of {@link BoundVerbs}, each op's site on its own: the first non-NULL function
 * wins, is bound again as often as asked, and any other function is refused (its objects call
 * through {@link InlineVerbs}). Two libc functions stand in for a provider's: bound, never called
 * (the sites' downcalls are critical, no place for an upcall). No other test of this module binds.
 */
class BoundVerbsTest {
    private static final MemorySegment FIRST = libc("strlen");
    private static final MemorySegment OTHER = libc("strnlen");

    private static MemorySegment libc(String name) {
        return Linker.nativeLinker().defaultLookup().find(name).orElseThrow();
    }

    @Test
    void theFirstFunctionOfAnOpIsBoundAndNoOtherIs() {
        assertFalse(BoundVerbs.bindPostSend(MemorySegment.NULL), "NULL is never bound");
        assertTrue(BoundVerbs.bindPostSend(FIRST));
        assertTrue(BoundVerbs.bindPostSend(FIRST), "the bound function again");
        assertFalse(BoundVerbs.bindPostSend(OTHER), "a second provider's function");
        assertFalse(BoundVerbs.bindPostSend(MemorySegment.NULL));

        // Each op has its own site: post_send's function does not bind poll_cq's.
        assertTrue(BoundVerbs.bindPollCq(OTHER));
        assertFalse(BoundVerbs.bindPollCq(FIRST));
    }

    @Test
    void anUnboundOpThrowsRatherThanCallAnything() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BoundVerbs.postSrqRecv(0, 0, 0));
        assertEquals("a BoundVerbs op called before its function was bound", e.getMessage());
    }
}
