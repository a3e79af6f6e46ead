// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.VerbsContextOps;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Runs everywhere, with or without RDMA devices. */
class DeviceListTest {
    @Test
    void deviceListMatchesTheKernelsUverbsDevices() throws IOException {
        // On a host without RDMA support libibverbs returns NULL (not an empty list), and
        // ibv_free_device_list(NULL) would crash: RawDevices.names() must cope with both.
        Path sysfs = Path.of("/sys/class/infiniband_verbs");
        long uverbs = 0;
        if (Files.isDirectory(sysfs)) {
            try (Stream<Path> entries = Files.list(sysfs)) {
                uverbs = entries.filter(p -> p.getFileName().toString().startsWith("uverbs")).count();
            }
        }
        assertEquals(uverbs, RawDevices.names().size(), "devices: " + RawDevices.names());
    }

    @Test
    void inlineVerbsRejectNullObjectsInsteadOfCrashing() {
        assertThrows(NullPointerException.class,
                () -> InlineVerbs.ibv_post_send(MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL));
        assertThrows(NullPointerException.class, () -> InlineVerbs.ibv_poll_cq(MemorySegment.NULL, 1, MemorySegment.NULL));
        assertThrows(NullPointerException.class,
                () -> VerbsContextOps.ibv_query_device_ex(MemorySegment.NULL, MemorySegment.NULL,
                        MemorySegment.ofArray(new byte[1024])));
    }
}
