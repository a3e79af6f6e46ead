// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_recv_wr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A receive work request ({@code struct ibv_recv_wr}) in native memory: build it once, post it
 * with {@link QueuePair#post(ReceiveRequest)}, change the wr_id or SGEs and post it again,
 * without allocating. Not thread-safe.
 */
public final class ReceiveRequest {
    private static final long WR_SIZE = ibv_recv_wr.layout().byteSize();

    private final MemorySegment wr;
    private final long address;
    /** The num_sge last written to the native struct (-1: never), so a re-post writes nothing. */
    private int numSge = -1;
    private final ScatterGatherList sges;
    private ReceiveRequest next;

    /** A request with room for one SGE. */
    public ReceiveRequest() {
        this(1);
    }

    /**
     * A request with room for {@code maxSges} scatter/gather entries.
     *
     * @param maxSges at least 1
     */
    public ReceiveRequest(int maxSges) {
        if (maxSges < 1) {
            throw new IllegalArgumentException("maxSges must be at least 1, not " + maxSges);
        }
        MemorySegment memory = Arena.ofAuto().allocate(WR_SIZE + ScatterGatherList.byteSize(maxSges), 8);
        this.wr = memory.asSlice(0, WR_SIZE);
        this.address = wr.address();
        MemorySegment sgeArray = memory.asSlice(WR_SIZE);
        this.sges = new ScatterGatherList(sgeArray, maxSges);
        ibv_recv_wr.sg_list(wr, sgeArray);
    }

    MemorySegment segment() {
        return wr;
    }

    /** The native struct's address, for the address-taking downcalls; valid while this object is reachable. */
    long address() {
        return address;
    }

    /** Whether requests are chained after this one (then a failed post may have posted some). */
    boolean isChained() {
        return next != null;
    }

    /**
     * Sets the caller's identifier, returned in the completion.
     *
     * @param wrId any 64-bit value
     * @return this request
     */
    public ReceiveRequest wrId(long wrId) {
        ibv_recv_wr.wr_id(wr, wrId);
        return this;
    }

    /** {@return the caller's identifier} */
    public long wrId() {
        return ibv_recv_wr.wr_id(wr);
    }

    /**
     * Makes the whole region the only SGE.
     *
     * @param mr a region with local write access, of the queue pair's protection domain
     * @return this request
     */
    public ReceiveRequest sge(MemoryRegion mr) {
        return sge(mr, 0, SendRequest.wholeLength(mr));
    }

    /**
     * Makes {@code [offset, offset + length)} of the region the only SGE.
     *
     * @param mr     a region with local write access, of the queue pair's protection domain
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this request
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public ReceiveRequest sge(MemoryRegion mr, long offset, int length) {
        sges.set(0, mr, offset, length);
        sges.count(1);
        return this;
    }

    /**
     * Sets SGE {@code index}; the SGE count grows to include it.
     *
     * @param index  0 up to the capacity given to the constructor
     * @param mr     a region with local write access
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this request
     */
    public ReceiveRequest sge(int index, MemoryRegion mr, long offset, int length) {
        sges.set(index, mr, offset, length);
        return this;
    }

    /**
     * Sets how many of the SGEs are used.
     *
     * @param count 0 up to the number of SGEs set
     * @return this request
     */
    public ReceiveRequest sgeCount(int count) {
        sges.count(count);
        return this;
    }

    /**
     * Chains {@code next} after this request, so both are posted in one call; null ends the chain.
     *
     * @param next the following request, or null
     * @return this request
     */
    public ReceiveRequest next(ReceiveRequest next) {
        for (ReceiveRequest r = next; r != null; r = r.next) {
            if (r == this) {
                throw new IllegalArgumentException("chaining would create a cycle");
            }
        }
        this.next = next;
        ibv_recv_wr.next(wr, next == null ? MemorySegment.NULL : next.wr);
        return this;
    }

    void prepare(ProtectionDomain pd) {
        for (ReceiveRequest r = this; r != null; r = r.next) {
            if (!r.sges.usableIn(pd)) {
                r.sges.check(pd, r.wrId());
            }
            int n = r.sges.count();
            if (n != r.numSge) {
                ibv_recv_wr.num_sge(r.wr, n);
                r.numSge = n;
            }
        }
    }

    String find(long address) {
        for (ReceiveRequest r = this; r != null; r = r.next) {
            if (r.wr.address() == address) {
                return "receive request wr_id " + r.wrId();
            }
        }
        return "receive request wr_id " + wrId() + " or one chained to it";
    }
}
