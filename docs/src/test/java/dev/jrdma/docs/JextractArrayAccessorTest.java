// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.bindings.generated.ibv_device;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The workaround architecture.md shows for the indexed array accessors of the pinned jextract
 * (they ignore the field's offset), run on a struct ibv_device built in memory: no device needed.
 * If the bindings are regenerated with a fixed jextract, the second assertion fails: then update
 * the "Known bug" paragraph of docs/guide/architecture.md.
 */
class JextractArrayAccessorTest {
    @Test
    void sliceGetterReadsTheFieldAndTheIndexedOneReadsOffsetZero() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment struct = arena.allocate(ibv_device.layout());
            ibv_device.name(struct).setString(0, "rxe0");
            struct.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 'X');   // first byte of _ops
            // What ibv_get_device_list hands out: an address, as a zero-length segment.
            MemorySegment dev = MemorySegment.ofAddress(struct.address());

            // @start region="slice-getter"
            // dev points at a struct ibv_device: give the segment the struct's size first.
            MemorySegment device = dev.reinterpret(ibv_device.layout().byteSize());
            // Not ibv_device.name(device, i): at the pinned commit it reads at offset 0 of the struct.
            String name = ibv_device.name(device).getString(0);
            // @end

            assertEquals("rxe0", name);
            assertEquals((byte) 'X', ibv_device.name(device, 0),
                    "ibv_device.name(struct, 0) no longer reads offset 0: the jextract bug is gone, update architecture.md");
        }
    }
}
