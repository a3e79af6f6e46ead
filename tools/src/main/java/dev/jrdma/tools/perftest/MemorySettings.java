// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Memory: --use_hugepages, --mmap, --mmap-offset, --use-null-mr, --payload_file_path, --numa_node, --odp.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record MemorySettings() {
    /** None of the group's options given. */
    public static final MemorySettings DEFAULT = new MemorySettings();
}
