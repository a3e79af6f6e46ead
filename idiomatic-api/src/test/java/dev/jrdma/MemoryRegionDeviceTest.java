// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.internal.Libc;
import dev.jrdma.testing.DeviceTest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

@DeviceTest
class MemoryRegionDeviceTest extends DeviceFixture {
    @Test
    void allocatesPageAlignedZeroedMemoryWithLeastPrivilegeByDefault() {
        try (MemoryRegion mr = pd.allocate(10_000)) {
            assertEquals(Access.DEFAULT, mr.access());
            assertEquals(0, mr.address() % Libc.PAGE_SIZE);
            assertEquals(10_000, mr.length());
            assertEquals(10_000, mr.segment().byteSize());
            assertEquals(-1, mr.segment().mismatch(MemorySegment.ofArray(new byte[10_000])));
            assertSame(pd, mr.protectionDomain());
            assertNotEquals(0, mr.lkey());
        }
    }

    @Test
    void registersCallerMemoryWithTheRequestedRights() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(4096, 64);
            EnumSet<Access> rights = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
            try (MemoryRegion mr = pd.register(segment, rights)) {
                assertEquals(rights, mr.access());
                assertEquals(segment.address(), mr.address());
                assertEquals(new RemoteMemory(segment.address(), 4096, mr.rkey()), mr.remote());
                assertEquals(new RemoteMemory(segment.address() + 8, 16, mr.rkey()), mr.remote(8, 16));
                assertThrows(IndexOutOfBoundsException.class, () -> mr.remote(4090, 16));
            }
            try (MemoryRegion readOnly = pd.register(segment, EnumSet.noneOf(Access.class))) {
                assertTrue(readOnly.access().isEmpty());
            }
        }
    }

    @Test
    void refusesHeapSegmentsClosedArenasAndInconsistentRights() {
        IllegalArgumentException heap = assertThrows(IllegalArgumentException.class,
                () -> pd.register(MemorySegment.ofArray(new byte[4096])));
        assertTrue(heap.getMessage().contains("heap"), heap.getMessage());
        MemorySegment gone;
        try (Arena arena = Arena.ofConfined()) {
            gone = arena.allocate(4096);
        }
        assertThrows(IllegalStateException.class, () -> pd.register(gone));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(4096);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pd.register(segment, EnumSet.of(Access.REMOTE_WRITE)));
            assertTrue(e.getMessage().contains("LOCAL_WRITE"), e.getMessage());
            try (Arena other = Arena.ofConfined()) {
                assertThrows(IllegalArgumentException.class, () -> pd.register(segment, other, Access.DEFAULT));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> pd.allocate(0));
    }

    @Test
    void aRegionWhoseArenaClosedRefusesUse() {
        MemoryRegion mr;
        try (Arena arena = Arena.ofConfined()) {
            mr = pd.register(arena.allocate(4096));
            assertNotEquals(0, mr.lkey());
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, mr::lkey);
        assertTrue(e.getMessage().contains("close memory regions before the arena"), e.getMessage());
        assertThrows(IllegalStateException.class, mr::remote);
        assertThrows(IllegalStateException.class, () -> new SendRequest().sge(mr));
        mr.close();
    }

    @Test
    void aRegionTiedToItsArenaIsDeregisteredWhenTheArenaCloses() {
        MemoryRegion mr;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(8192, 4096);
            mr = pd.register(segment, arena, Loopback.ALL);
            segment.set(ValueLayout.JAVA_LONG, 0, 42);
            assertEquals(42, mr.segment().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(1, pd.dependents().size());
        }
        assertTrue(mr.isClosed());
        assertTrue(pd.dependents().isEmpty());
        mr.close();
    }

    @Test
    void closingARegionThatOwnsItsMemoryFreesIt() {
        MemoryRegion mr = pd.allocate(4096, Loopback.ALL);
        MemorySegment segment = mr.segment();
        mr.close();
        assertFalse(segment.scope().isAlive());
        assertThrows(IllegalStateException.class, () -> segment.get(ValueLayout.JAVA_BYTE, 0));
        IllegalStateException e = assertThrows(IllegalStateException.class, mr::rkey);
        assertTrue(e.getMessage().startsWith("memory region lkey 0x") && e.getMessage().endsWith(" is closed"),
                e.getMessage());
        mr.close();
    }
}
