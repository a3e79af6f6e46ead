// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The librxe cq_ex quirk detection, on the host (no device). */
class ExtendedPollVerbsTest {
    @Test
    void rdmaCoreReleaseIsReadFromTheLibraryFileName() {
        assertEquals(44, ExtendedPollVerbs.rdmaCoreVersion(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0")));
        assertEquals(61, ExtendedPollVerbs.rdmaCoreVersion(Path.of("libibverbs.so.1.15.61.0")));
        assertEquals(-1, ExtendedPollVerbs.rdmaCoreVersion(Path.of("libibverbs.so.1")));
        assertEquals(-1, ExtendedPollVerbs.rdmaCoreVersion(Path.of("libibverbs.so.1.x.y.z")));
    }

    @Test
    void aFunctionOutsideLibrxeIsNoQuirk() {
        assertFalse(ExtendedPollVerbs.nextPollReleasesOnEmpty(MemorySegment.NULL));
        // Some address in this JVM's own code, not in any librxe mapping.
        assertFalse(ExtendedPollVerbs.nextPollReleasesOnEmpty(
                java.lang.foreign.Linker.nativeLinker().defaultLookup().find("strlen").orElseThrow()));
    }
}
