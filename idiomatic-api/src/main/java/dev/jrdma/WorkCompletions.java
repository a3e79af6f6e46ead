// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_wc;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A reusable batch of work completions: an {@code ibv_wc} array in native memory that
 * {@link CompletionQueue#poll(WorkCompletions)} fills, with one {@link WorkCompletion} view
 * per slot created up front, so polling a batch allocates nothing. Not thread-safe.
 */
public final class WorkCompletions {
    private final MemorySegment array;
    private final long address;
    private final WorkCompletion[] views;
    private int count;

    /**
     * A batch of {@code capacity} completions, with its own native memory.
     *
     * @param capacity the most completions one poll reads
     */
    public WorkCompletions(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, not " + capacity);
        }
        long size = ibv_wc.layout().byteSize();
        this.array = Arena.ofAuto().allocate(ibv_wc.layout(), capacity);
        this.address = array.address();
        this.views = new WorkCompletion[capacity];
        for (int i = 0; i < capacity; i++) {
            views[i] = new WorkCompletion(array.asSlice(i * size, size));
        }
    }

    MemorySegment segment() {
        return array;
    }

    /** The native struct's address, for the address-taking downcalls; valid while this object is reachable. */
    long address() {
        return address;
    }

    void count(int count) {
        this.count = count;
    }

    /** {@return the number of slots} */
    public int capacity() {
        return views.length;
    }

    /** {@return the number of completions the last poll read} */
    public int count() {
        return count;
    }

    /**
     * {@return completion {@code index} of the last poll, a view valid until the next poll}
     *
     * @param index {@code 0 <= index < count()}
     */
    public WorkCompletion get(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("completion " + index + " of " + count);
        }
        return views[index];
    }
}
