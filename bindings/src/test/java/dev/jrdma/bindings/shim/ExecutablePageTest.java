// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings.shim;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class ExecutablePageTest {
    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "x86_64"})
    void theCodeRunsFromAReadOnlyExecutablePage() throws Throwable {
        // mov $42, %eax; ret
        byte[] code = {(byte) 0xb8, 0x2a, 0x00, 0x00, 0x00, (byte) 0xc3};
        MemorySegment page = ExecutablePage.of(code);
        MethodHandle h = Linker.nativeLinker().downcallHandle(page, FunctionDescriptor.of(JAVA_INT));
        assertEquals(42, (int) h.invokeExact());
        // W^X: the page is no longer writable once it is executable.
        String maps = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/maps"));
        String start = Long.toHexString(page.address());
        String line = maps.lines().filter(l -> l.startsWith(start + "-") || l.contains(start + "-"))
                .findFirst().orElseThrow(() -> new AssertionError("no mapping at " + start + " in /proc/self/maps"));
        assertTrue(line.split(" ")[1].startsWith("r-x"), line);
    }

    @Test
    void codeThatIsEmptyOrLargerThanAPageIsRefusedByItsSize() {
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> ExecutablePage.of(new byte[0]));
        assertTrue(empty.getMessage().contains("0 bytes"), empty.getMessage());
        IllegalArgumentException large = assertThrows(IllegalArgumentException.class, () -> ExecutablePage.of(new byte[4097]));
        assertTrue(large.getMessage().contains("4097 bytes"), large.getMessage());
    }
}
