// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.exclusive;
import static dev.jrdma.tools.UsageErrors.needs;
import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.MemorySettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * perftest's memory options: where the test buffer comes from and how it is registered. Every
 * test has these; --payload_file_path ({@link PayloadOptions}: all but write-lat, whose buffer
 * carries the iteration counter) and --use-null-mr ({@link NullMrOptions}: the write and read
 * tests) are offered where perftest's usage() offers them. --disable_numa only matters with
 * --numa_node: perftest's other NUMA placement (to the device's node) is one jrdma does not do.
 */
final class MemoryOptions {
    @Option(names = "--use_hugepages",
            description = "Allocate the buffer from huge pages (mmap MAP_HUGETLB; the kernel needs pages reserved "
                    + "in /proc/sys/vm/nr_hugepages) instead of ordinary pages.")
    boolean hugepages;

    @Option(names = "--mmap", paramLabel = "FILE",
            description = "Use FILE, mapped shared, as the buffer (e.g. a device's memory exposed as a file, for "
                    + "P2P transfers); the file must be at least --mmap-offset plus the buffer's size.")
    Path mmapFile;

    @Option(names = "--mmap-offset", paramLabel = "OFFSET",
            description = "Where the --mmap mapping starts in FILE, a multiple of the page size (default: 0).")
    Long mmapOffset;

    @Option(names = "--numa_node", paramLabel = "NODE",
            description = "Run the test on the CPUs of this NUMA node (as perftest's numa_run_on_node); excludes "
                    + "--pin-cpu.")
    Integer numaNode;

    @Option(names = "--disable_numa",
            description = "perftest 26.04: no NUMA binding at all. perftest binds itself to the device's NUMA node "
                    + "(sysfs device/numa_node) unless this is given; jrdma never places itself automatically, so "
                    + "alone this changes nothing. With --numa_node it turns that binding off too, as in perftest "
                    + "(the node is still checked).")
    boolean disableNuma;

    @Option(names = "--odp",
            description = "Register the buffer with on-demand paging (IBV_ACCESS_ON_DEMAND) where the device "
                    + "offers it (IBV_ODP_SUPPORT); refused (exit 2, one line naming the device) where it does not.")
    boolean onDemand;

    /** --payload_file_path: all tests but write-lat. */
    static final class PayloadOptions {
        @Option(names = "--payload_file_path", paramLabel = "FILE",
                description = "Fill the buffer with the pattern in FILE: comma-separated 32-bit words "
                        + "'0xaaaaaaaa,0xbbbbbbbb,...', each stored little-endian, repeated (cut at the message size).")
        Path payloadFile;
    }

    /** --use-null-mr: the write and read tests. */
    static final class NullMrOptions {
        @Option(names = "--use-null-mr",
                description = "perftest: use the device's null memory region (ibv_alloc_null_mr) for the local side "
                        + "of every write or read, so the device neither reads nor writes local memory. jrdma asks the "
                        + "device for one and refuses the option (exit 2, one line): where the device refuses (rxe "
                        + "does) naming its errno, where it grants one because jrdma's work requests cannot carry "
                        + "its key.")
        boolean nullMr;
    }

    /**
     * The validated settings.
     *
     * @param spec     the command, for usage errors
     * @param payload  the test's --payload_file_path, or null where it does not offer it
     * @param nullMr   the test's --use-null-mr, or null where it does not offer it
     * @param maxSize  the largest message size (the payload is cut there)
     * @param pinCpu   whether --pin-cpu was given
     * @throws ParameterException naming the option on invalid input
     */
    MemorySettings resolve(CommandSpec spec, PayloadOptions payload, NullMrOptions nullMr, long maxSize,
                           boolean pinCpu) {
        long offset = 0;
        if (mmapOffset != null) {
            if (mmapFile == null) {
                throw needs(spec, "'--mmap-offset'", "--mmap");
            }
            if (mmapOffset < 0 || mmapOffset % 4096 != 0) {
                throw usage(spec, "option '--mmap-offset': must be a non-negative multiple of the page size (4096), "
                        + "got " + mmapOffset);
            }
            offset = mmapOffset;
        }
        if (mmapFile != null) {
            if (hugepages) {
                throw exclusive(spec, "'--mmap'", "'--use_hugepages'", "the file's pages are the buffer");
            }
            if (!Files.isRegularFile(mmapFile) && !Files.exists(mmapFile)) {
                throw usage(spec, "option '--mmap': no file '" + mmapFile + "'");
            }
        }
        int node = -1;
        if (numaNode != null) {
            if (numaNode < 0) {
                throw usage(spec, "option '--numa_node': must not be negative, got " + numaNode);
            }
            if (pinCpu) {
                throw exclusive(spec, "'--numa_node'", "'--pin-cpu'");
            }
            if (!Files.isDirectory(dev.jrdma.tools.perftest.NumaNodes.nodeDirectory(numaNode))) {
                throw usage(spec, "option '--numa_node': NUMA node " + numaNode + " does not exist (available: "
                        + dev.jrdma.tools.perftest.NumaNodes.available() + ")");
            }
            // perftest 26.04 checks the node, then skips every binding when --disable_numa is given.
            node = disableNuma ? -1 : numaNode;
        }
        byte[] pattern = new byte[0];
        if (payload != null && payload.payloadFile != null) {
            try {
                pattern = MemorySettings.parsePayload(Files.readString(payload.payloadFile), maxSize);
            } catch (IOException e) {
                throw usage(spec, "option '--payload_file_path': cannot read '" + payload.payloadFile + "': " + e);
            } catch (IllegalArgumentException e) {
                throw usage(spec, "option '--payload_file_path': '" + payload.payloadFile + "': " + e.getMessage());
            }
        }
        boolean useNullMr = nullMr != null && nullMr.nullMr;
        return new MemorySettings(hugepages, mmapFile, offset, useNullMr, pattern, node, onDemand);
    }
}
