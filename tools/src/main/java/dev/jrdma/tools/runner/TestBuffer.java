// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.Access;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.UnmappedMemoryRegion;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.tools.perftest.MemorySettings;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;

/**
 * The test buffer as the memory options ask for it (perftest's create_single_mr): ordinary
 * page-aligned memory, huge pages (--use_hugepages), or a file mapped shared (--mmap,
 * --mmap-offset); registered with on-demand paging where --odp asks (the API asks the device
 * first and refuses naming it); filled with the --payload_file_path pattern; with
 * --use-null-mr the device's null memory region besides. {@link #close()} deregisters, then
 * frees or unmaps.
 */
final class TestBuffer implements AutoCloseable {
    private final MemoryRegion region;
    /** The mapping of --mmap or --use_hugepages (closing it deregisters the region first), or null. */
    private final Arena mapping;
    private final UnmappedMemoryRegion nullRegion;

    private TestBuffer(MemoryRegion region, Arena mapping, UnmappedMemoryRegion nullRegion) {
        this.region = region;
        this.mapping = mapping;
        this.nullRegion = nullRegion;
    }

    /** {@return the registered buffer} */
    MemoryRegion region() {
        return region;
    }

    /**
     * Allocates and registers {@code size} bytes as {@code m} asks.
     *
     * @throws IllegalStateException naming the option when the file or the huge pages cannot be had
     * @throws dev.jrdma.RdmaException (e.g. OperationNotSupportedException) when the device refuses
     *                                 ODP or the null memory region, naming it and the errno
     */
    static TestBuffer allocate(ProtectionDomain pd, long size, Set<Access> access, MemorySettings m) {
        Set<Access> rights = EnumSet.copyOf(access);
        if (m.onDemand()) {
            rights.add(Access.ON_DEMAND);
        }
        MemoryRegion region;
        Arena mapping = null;
        if (m.mmapFile() != null || m.hugepages()) {
            mapping = Arena.ofShared();
            try {
                MemorySegment memory = m.hugepages() ? hugePages(size, mapping) : mapFile(m.mmapFile(), m.mmapOffset(),
                        size, mapping);
                region = pd.register(memory, mapping, rights);
            } catch (RuntimeException | Error e) {
                mapping.close();
                throw e;
            }
        } else {
            region = pd.allocate(size, rights);
        }
        UnmappedMemoryRegion nullRegion = null;
        try {
            fill(region.segment(), m.payload());
            if (m.nullMr()) {
                nullRegion = pd.allocateNullMemoryRegion();   // rxe: refused, naming the device and errno
                throw new UnsupportedOperationException("--use-null-mr: " + pd.context().name() + " offers a null "
                        + "memory region, but jrdma's work requests cannot yet carry its lkey (no SGE of an "
                        + "UnmappedMemoryRegion in the API)");
            }
        } catch (RuntimeException | Error e) {
            new TestBuffer(region, mapping, nullRegion).close();
            throw e;
        }
        return new TestBuffer(region, mapping, null);
    }

    /** perftest fills the whole buffer with the payload pattern, repeated. */
    static void fill(MemorySegment buffer, byte[] pattern) {
        if (pattern.length == 0) {
            return;
        }
        MemorySegment p = MemorySegment.ofArray(pattern);
        long size = buffer.byteSize();
        for (long at = 0; at < size; at += pattern.length) {
            MemorySegment.copy(p, 0, buffer, at, Math.min(pattern.length, size - at));
        }
    }

    private static MemorySegment mapFile(Path file, long offset, long size, Arena arena) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long length = ch.size();
            if (length < offset + size) {
                // Mapping beyond the end would make the file grow (READ_WRITE), or fault where perftest's would.
                throw new IllegalStateException("--mmap: '" + file + "' has " + length + " bytes; the buffer needs " + size
                        + " from offset " + offset + " (" + (offset + size) + ")");
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, offset, size, arena);
        } catch (IOException e) {
            throw new IllegalStateException("--mmap: cannot map '" + file + "': " + e, e);
        }
    }

    // --use_hugepages: anonymous MAP_HUGETLB memory. The JDK maps files, not huge pages, so mmap(2)
    // and munmap(2) are called directly (Linux x86-64/aarch64 constants).
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS_HUGETLB = 0x02 | 0x20 | 0x40000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));

    private static MemorySegment hugePages(long size, Arena arena) {
        long page = hugePageSize();
        long length = (size + page - 1) / page * page;
        MemorySegment address;
        int errno;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Errno.allocate(call);
            address = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS_HUGETLB, -1, 0L);
            errno = Errno.get(state);
        } catch (Throwable t) {
            throw new IllegalStateException("mmap", t);
        }
        if (address.address() == -1L) {
            throw new IllegalStateException("--use_hugepages: mmap of " + length + " bytes of "
                    + (page >> 10) + " KiB huge pages failed: " + Posix.strerror(errno) + " (HugePages_Free "
                    + meminfo("HugePages_Free:") + " of " + meminfo("HugePages_Total:")
                    + "; reserve pages with /proc/sys/vm/nr_hugepages)");
        }
        return address.reinterpret(length, arena, s -> {
            try {
                int rc = (int) MUNMAP.invokeExact(s, length);
                assert rc == 0;
            } catch (Throwable t) {
                throw new IllegalStateException("munmap", t);
            }
        });
    }

    /** The huge page size, from /proc/meminfo's Hugepagesize (2 MiB where it cannot be read). */
    static long hugePageSize() {
        String kb = meminfo("Hugepagesize:");
        try {
            return Long.parseLong(kb.replace("kB", "").strip()) * 1024;
        } catch (NumberFormatException e) {
            return 2L << 20;
        }
    }

    private static String meminfo(String key) {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith(key))
                    .map(l -> l.substring(key.length()).strip()).findFirst().orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    /** Deregisters the buffer (and the null region), then frees or unmaps its memory. */
    @Override
    public void close() {
        if (nullRegion != null) {
            nullRegion.close();
        }
        region.close();
        if (mapping != null) {
            mapping.close();
        }
    }
}
