// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Memory: --use_hugepages, --mmap, --mmap-offset, --use-null-mr, --payload_file_path, --numa_node, --odp.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 *
 * @param hugepages  --use_hugepages: the buffer is anonymous memory of huge pages (MAP_HUGETLB)
 * @param mmapFile   --mmap: the buffer is this file mapped shared, or null
 * @param mmapOffset --mmap-offset: where the mapping starts in the file
 * @param nullMr     --use-null-mr: also allocate the device's null memory region
 * @param payload    --payload_file_path: the bytes the buffer is filled with, repeated (empty: none)
 * @param numaNode   --numa_node: the NUMA node whose CPUs run the test, or -1
 * @param onDemand   --odp: register the buffer with on-demand paging
 */
public record MemorySettings(boolean hugepages, Path mmapFile, long mmapOffset, boolean nullMr, byte[] payload,
                             int numaNode, boolean onDemand) {
    /** None of the group's options given. */
    public static final MemorySettings DEFAULT = new MemorySettings(false, null, 0, false, new byte[0], -1, false);

    public MemorySettings {
        payload = payload.clone();
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /**
     * The warm-up twins' memory: ordinary pages instead of huge pages or the --mmap file (the
     * twins' two buffers would need as many more huge pages, or share the file's bytes), the
     * rest as given, so that --odp and --use-null-mr are asked of the device there first.
     */
    public MemorySettings forWarmUp() {
        return new MemorySettings(false, null, 0, nullMr, payload, numaNode, onDemand);
    }

    /**
     * perftest's payload file: comma-separated 32-bit words written {@code 0xaabbccdd}, each put in
     * the buffer little-endian (dd cc bb aa), up to {@code size} bytes.
     *
     * @param text the file's content
     * @param size the message size: the pattern is cut there, as perftest cuts it
     * @return the pattern's bytes
     * @throws IllegalArgumentException naming the word that is not {@code 0x} and 8 hex digits
     */
    public static byte[] parsePayload(String text, long size) {
        List<Byte> bytes = new ArrayList<>();
        String[] words = text.strip().split("[,\\n]");
        for (int w = 0; w < words.length && bytes.size() < size; w++) {
            String word = words[w].strip();
            if (word.isEmpty() && w == words.length - 1) {
                break;
            }
            if (word.length() != 10 || !(word.startsWith("0x") || word.startsWith("0X"))
                    || !word.substring(2).chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new IllegalArgumentException("word " + w + " ('" + word + "') is not 0x and 8 hex digits");
            }
            int value = HexFormat.fromHexDigits(word, 2, 10);
            for (int b = 0; b < 4 && bytes.size() < size; b++) {
                bytes.add((byte) (value >>> (8 * b)));
            }
        }
        if (bytes.isEmpty()) {
            throw new IllegalArgumentException("no words (expected e.g. 0xaaaaaaaa,0xbbbbbbbb)");
        }
        byte[] out = new byte[bytes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = bytes.get(i);
        }
        return out;
    }

    // A record compares arrays by identity: the payload is compared by content, so two settings
    // resolved from the same command line are equal.
    @Override
    public boolean equals(Object o) {
        return o instanceof MemorySettings m && hugepages == m.hugepages && java.util.Objects.equals(mmapFile, m.mmapFile)
                && mmapOffset == m.mmapOffset && nullMr == m.nullMr && java.util.Arrays.equals(payload, m.payload)
                && numaNode == m.numaNode && onDemand == m.onDemand;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(hugepages, mmapFile, mmapOffset, nullMr, java.util.Arrays.hashCode(payload), numaNode,
                onDemand);
    }

    @Override
    public String toString() {
        return "MemorySettings[hugepages=" + hugepages + ", mmapFile=" + mmapFile + ", mmapOffset=" + mmapOffset
                + ", nullMr=" + nullMr + ", payload=" + payload.length + " bytes, numaNode=" + numaNode + ", onDemand="
                + onDemand + "]";
    }

    /**
     * The group's parameters for --json/--csv (perftest's JSON has none of them): the buffer's
     * memory, --payload_file_path's pattern length in bytes (0: none), the NUMA node (null: none).
     */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("use_hugepages", hugepages);
        p.put("mmap", mmapFile == null ? null : mmapFile.toString());
        p.put("mmap_offset", mmapOffset);
        p.put("use_null_mr", nullMr);
        p.put("payload_bytes", payload.length);
        p.put("numa_node", numaNode >= 0 ? numaNode : null);
        p.put("odp", onDemand);
        return p;
    }
}
