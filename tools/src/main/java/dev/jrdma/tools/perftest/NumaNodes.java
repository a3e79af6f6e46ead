// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.shim.Posix;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.stream.Stream;

/**
 * --numa_node: the NUMA nodes as Linux's sysfs lists them, and binding the measuring thread to a
 * node's CPUs (what perftest's numa_run_on_node does for its single thread). Memory follows by
 * Linux's default first-touch policy: the buffer is allocated and zeroed by the bound thread, so
 * its pages come from the node (perftest sets a membind policy instead; without libnuma jrdma
 * does not).
 */
public final class NumaNodes {
    private NumaNodes() {
    }

    private static final Path NODES = Path.of("/sys/devices/system/node");
    private static final long SET_BYTES = CpuAffinity.MAX_CPUS / 8;

    /** {@return sysfs's directory of node {@code node}} */
    public static Path nodeDirectory(int node) {
        return NODES.resolve("node" + node);
    }

    /** {@return the nodes sysfs lists, e.g. "0" or "0,1", or "none"} */
    public static String available() {
        try (Stream<Path> s = Files.list(NODES)) {
            String list = String.join(",", s.map(p -> p.getFileName().toString()).filter(n -> n.matches("node\\d+"))
                    .map(n -> n.substring(4)).sorted().toList());
            return list.isEmpty() ? "none" : list;
        } catch (IOException e) {
            return "none";
        }
    }

    /**
     * Parses a kernel CPU list ("0-3,8,10-11").
     *
     * @throws IllegalArgumentException when the text is not a CPU list
     */
    public static BitSet parseCpuList(String text) {
        BitSet cpus = new BitSet();
        String t = text.strip();
        if (t.isEmpty()) {
            return cpus;
        }
        for (String part : t.split(",")) {
            String[] range = part.split("-", 2);
            int from = Integer.parseInt(range[0].strip());
            int to = range.length == 2 ? Integer.parseInt(range[1].strip()) : from;
            if (from < 0 || to < from || to >= CpuAffinity.MAX_CPUS) {
                throw new IllegalArgumentException("not a CPU list: '" + text + "'");
            }
            cpus.set(from, to + 1);
        }
        return cpus;
    }

    /**
     * Binds the calling thread to the CPUs of {@code node}; closing the binding restores the CPUs
     * it had before.
     *
     * @throws IOException naming the node when sysfs does not list it, it has no CPUs, or binding fails
     */
    public static CpuAffinity.Pinned bindCurrentThread(int node) throws IOException {
        Path list = nodeDirectory(node).resolve("cpulist");
        if (!Files.exists(list)) {
            throw new IOException("--numa_node: NUMA node " + node + " does not exist (available: " + available() + ")");
        }
        BitSet cpus = parseCpuList(Files.readString(list));
        if (cpus.isEmpty()) {
            throw new IOException("--numa_node: NUMA node " + node + " has no CPUs (memory only)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(SET_BYTES, 8);
            int errno = Posix.getThreadAffinity(mask);
            if (errno != 0) {
                throw new IOException("--numa_node: sched_getaffinity failed: " + Posix.strerror(errno));
            }
            long[] before = mask.toArray(JAVA_LONG);
            mask.fill((byte) 0);
            long[] words = cpus.toLongArray();
            MemorySegment.copy(words, 0, mask, JAVA_LONG, 0, words.length);
            errno = Posix.setThreadAffinity(mask);
            if (errno != 0) {
                throw new IOException("--numa_node: binding the thread to node " + node + "'s CPUs " + cpus + " failed: "
                        + Posix.strerror(errno));
            }
            return new CpuAffinity.Pinned(before);
        }
    }
}
