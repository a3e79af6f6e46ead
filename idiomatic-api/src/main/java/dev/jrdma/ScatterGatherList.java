// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_sge;
import java.lang.foreign.MemorySegment;

/**
 * The {@code struct ibv_sge} array of a work request, with the memory region behind each
 * entry, so a post can check every region is still open (and its memory alive) without
 * allocating. Entries are written when set, not when posted.
 */
final class ScatterGatherList {
    private static final long SIZE = ibv_sge.layout().byteSize();
    private static final long ADDR = ibv_sge.addr$offset();
    private static final long LENGTH = ibv_sge.length$offset();
    private static final long LKEY = ibv_sge.lkey$offset();

    private final MemorySegment array;
    private final MemoryRegion[] regions;
    private final int[] lengths;
    private int count;

    ScatterGatherList(MemorySegment array, int capacity) {
        this.array = array;
        this.regions = new MemoryRegion[capacity];
        this.lengths = new int[capacity];
    }

    static long byteSize(int capacity) {
        return SIZE * capacity;
    }

    void set(int index, MemoryRegion mr, long offset, int length) {
        if (index < 0 || index >= regions.length) {
            throw new IndexOutOfBoundsException("SGE " + index + " of a work request with room for " + regions.length);
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative SGE length " + length);
        }
        mr.checkUsable();
        mr.checkRange(offset, length);
        long base = index * SIZE;
        array.set(JAVA_LONG, base + ADDR, mr.address() + offset);
        array.set(JAVA_INT, base + LENGTH, length);
        array.set(JAVA_INT, base + LKEY, mr.lkey());
        regions[index] = mr;
        lengths[index] = length;
        count = Math.max(count, index + 1);
    }

    void count(int count) {
        if (count < 0 || count > regions.length) {
            throw new IndexOutOfBoundsException("SGE count " + count + " of a work request with room for "
                    + regions.length);
        }
        for (int i = 0; i < count; i++) {
            if (regions[i] == null) {
                throw new IllegalStateException("SGE " + i + " was never set");
            }
        }
        this.count = count;
    }

    int count() {
        return count;
    }

    int capacity() {
        return regions.length;
    }

    long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i];
        }
        return total;
    }

    int length(int index) {
        return lengths[index];
    }

    /** The region behind SGE {@code index}. */
    MemoryRegion region(int index) {
        return regions[index];
    }

    /** Copies the {@link #count()} entries in use to {@code target} at {@code offset} (a prepared request's own copy). */
    void copyTo(MemorySegment target, long offset) {
        MemorySegment.copy(array, 0, target, offset, count * SIZE);
    }

    /**
     * The re-post check: every region open and its memory alive (else IllegalStateException),
     * and whether all are in {@code pd}. No message is built and no wr_id read unless one fails:
     * this runs on every post.
     */
    boolean usableIn(ProtectionDomain pd) {
        for (int i = 0; i < count; i++) {
            MemoryRegion mr = regions[i];
            mr.checkUsable();
            if (mr.protectionDomain() != pd) {
                return false;
            }
        }
        return true;
    }

    /** Every region open, its memory alive, and in the queue pair's protection domain. */
    void check(ProtectionDomain pd, long wrId) {
        for (int i = 0; i < count; i++) {
            MemoryRegion mr = regions[i];
            mr.checkUsable();
            if (mr.protectionDomain() != pd) {
                throw new IllegalArgumentException("work request wr_id " + wrId + ": SGE " + i + " uses " + mr
                        + " of " + mr.protectionDomain() + ", but the queue is in " + pd);
            }
        }
    }
}
