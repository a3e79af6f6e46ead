// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.generated.ibv_send_wr;
import dev.jrdma.bindings.shim.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What a send and a receive work request have in common: {@code struct ibv_send_wr} and
 * {@code struct ibv_recv_wr} begin alike (wr_id, next, sg_list, num_sge), followed in the same
 * allocation by the SGE array; the wr_id, the SGEs and the chain are set the same way.
 *
 * @param <R> the request type, which the setters return
 */
abstract sealed class WorkRequest<R extends WorkRequest<R>> permits SendRequest, ReceiveRequest {
    static {
        // The head is written through ibv_recv_wr's accessors for both structs.
        if (ibv_send_wr.wr_id$offset() != ibv_recv_wr.wr_id$offset()
                || ibv_send_wr.next$offset() != ibv_recv_wr.next$offset()
                || ibv_send_wr.sg_list$offset() != ibv_recv_wr.sg_list$offset()
                || ibv_send_wr.num_sge$offset() != ibv_recv_wr.num_sge$offset()) {
            throw new AssertionError("struct ibv_send_wr and struct ibv_recv_wr no longer begin alike");
        }
    }

    final MemorySegment wr;
    private final long address;
    final ScatterGatherList sges;
    R next;

    WorkRequest(long wrSize, int maxSges) {
        if (maxSges < 1) {
            throw new IllegalArgumentException("maxSges must be at least 1, not " + maxSges);
        }
        MemorySegment memory = Arena.ofAuto().allocate(wrSize + ScatterGatherList.byteSize(maxSges), 8);
        this.wr = memory.asSlice(0, wrSize);
        this.address = wr.address();
        MemorySegment sgeArray = memory.asSlice(wrSize);
        this.sges = new ScatterGatherList(sgeArray, maxSges);
        ibv_recv_wr.sg_list(wr, sgeArray);
    }

    /** A change that the next post must check again (SGEs, opcode-dependent fields). */
    abstract void changed();

    /** How a failed post names this request, e.g. {@code receive request wr_id 5}. */
    abstract String describe();

    @SuppressWarnings("unchecked")
    private R self() {
        return (R) this;
    }

    MemorySegment segment() {
        return wr;
    }

    /** The native struct's address, for the address-taking downcalls; valid while this object is reachable. */
    long address() {
        return address;
    }

    /**
     * Sets the caller's identifier, returned in the completion.
     *
     * @param wrId any 64-bit value
     * @return this request
     */
    public R wrId(long wrId) {
        ibv_recv_wr.wr_id(wr, wrId);
        return self();
    }

    /** {@return the caller's identifier} */
    public long wrId() {
        return ibv_recv_wr.wr_id(wr);
    }

    /**
     * Makes the whole region the only SGE.
     *
     * @param mr a region of the queue pair's protection domain (with local write access to receive into it)
     * @return this request
     */
    public R sge(MemoryRegion mr) {
        return sge(mr, 0, wholeLength(mr));
    }

    /**
     * Makes {@code [offset, offset + length)} of the region the only SGE.
     *
     * @param mr     a region of the queue pair's protection domain (with local write access to receive into it)
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this request
     * @throws IndexOutOfBoundsException when the range is not inside the region
     */
    public R sge(MemoryRegion mr, long offset, int length) {
        sges.set(0, mr, offset, length);
        sges.count(1);
        changed();
        return self();
    }

    /**
     * Sets SGE {@code index}; the SGE count grows to include it.
     *
     * @param index  0 up to the capacity given to the constructor
     * @param mr     a region of the queue pair's protection domain (with local write access to receive into it)
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this request
     */
    public R sge(int index, MemoryRegion mr, long offset, int length) {
        sges.set(index, mr, offset, length);
        changed();
        return self();
    }

    /**
     * Sets how many of the SGEs are used (0 for a zero-length message).
     *
     * @param count 0 up to the number of SGEs set
     * @return this request
     */
    public R sgeCount(int count) {
        sges.count(count);
        changed();
        return self();
    }

    /**
     * Chains {@code next} after this request, so both are posted in one call; null ends the chain.
     *
     * @param next the following request, or null
     * @return this request
     */
    public R next(R next) {
        for (WorkRequest<R> r = next; r != null; r = r.next) {
            if (r == this) {
                throw new IllegalArgumentException("chaining would create a cycle");
            }
        }
        this.next = next;
        ibv_recv_wr.next(wr, next == null ? MemorySegment.NULL : next.wr);
        return self();
    }

    /**
     * Whether a post that returned {@code rc} posted nothing for lack of room: ENOMEM for this
     * request itself, the first of its chain ({@code badWr} holds the provider's bad_wr). Reads
     * bad_wr only for a chain, so that a single request's answer allocates nothing.
     */
    boolean refusedForRoom(int rc, MemorySegment badWr) {
        return rc == Errno.ENOMEM && (next == null || badWr.get(JAVA_LONG, 0) == address);
    }

    /** Names the request of this chain at {@code address} (the provider's bad_wr). */
    String find(long address) {
        for (WorkRequest<R> r = this; r != null; r = r.next) {
            if (r.wr.address() == address) {
                return r.describe();
            }
        }
        return describe() + " or one chained to it";
    }

    static int wholeLength(MemoryRegion mr) {
        if (mr.length() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(mr + " is too large for one SGE; give an offset and length");
        }
        return (int) mr.length();
    }
}
