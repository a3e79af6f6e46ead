// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_recv_wr;
import dev.jrdma.bindings.generated.ibv_sge;
import dev.jrdma.bindings.shim.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link PreparedSend} and a {@link PreparedReceive} have in common: a chain of work
 * requests copied, once checked, into native memory of their own ({@code struct ibv_send_wr}
 * or {@code ibv_recv_wr} back to back, then their SGE arrays, then the bad_wr slot), which a
 * post hands to the provider as it is.
 *
 * <p>Why a resource: the prepared chain depends on its queue, its memory regions (and a UD
 * send on its address handle), so closing any of them closes the prepared request first, and
 * {@code close()} waits for a post running inside it. A post therefore tests one word, this
 * object's open/close guard, instead of every region's state; after such a close the next post
 * throws {@link IllegalStateException}. Memory the caller registered (not allocated by the
 * region) is also checked at each post, since the caller may close its arena without closing
 * the region.
 */
abstract sealed class PreparedWork extends NativeResource permits PreparedSend, PreparedReceive {
    static final long SGE_SIZE = ibv_sge.layout().byteSize();
    private static final long SGE_LENGTH = ibv_sge.length$offset();
    static final long WR_ID = ibv_recv_wr.wr_id$offset();
    static final long NEXT = ibv_recv_wr.next$offset();
    static final long SG_LIST = ibv_recv_wr.sg_list$offset();
    private static final MemorySegment.Scope[] NO_SCOPES = {};

    /** Frees {@link #memory} at close, once no post runs inside this object. */
    private final Arena arena;
    /** The chain, its SGEs and the bad_wr slot. */
    final MemorySegment memory;
    /** The first work request's address, as the post downcalls take it. */
    final long first;
    final long badWr;
    private final long wrSize;
    private final int count;
    /** Per work request: the offset of its first SGE in {@link #memory}; its SGE count. */
    private final long[] sgeAt;
    private final int[] sgeCount;
    /** Per work request with one SGE: the length prepared, which {@link #setLength} may lower. */
    private final int[] maxLength;
    /** Per work request: the SGE length now. */
    final int[] length;
    /** The scopes of caller-owned memory that the chain uses; empty for regions that own their memory. */
    private final MemorySegment.Scope[] callerScopes;
    /**
     * Whether {@link #callerScopes} has any: a byte the post tests, where the array's length took
     * a load of the array, its null check and a load of the length (under TCG, where scripts/jrdma
     * sets PerMethodTrapLimit=0, C2 compiles the null check as an explicit test).
     */
    private final boolean usesCallerMemory;

    /**
     * Copies {@code chain} (its requests in order, each already checked for its queue) into new
     * memory, and registers with {@code owners} (the queue, the regions, a UD address handle).
     */
    PreparedWork(List<? extends WorkRequest<?>> chain, long wrSize, Thread confinedTo, NativeResource... owners) {
        super(confinedTo, owners);
        this.wrSize = wrSize;
        this.count = chain.size();
        this.sgeAt = new long[count];
        this.sgeCount = new int[count];
        this.maxLength = new int[count];
        this.length = new int[count];
        List<MemorySegment.Scope> scopes = new ArrayList<>();
        long sgeBytes = 0;
        for (WorkRequest<?> r : chain) {
            sgeBytes += ScatterGatherList.byteSize(r.sges.count());
        }
        Arena shared = Arena.ofShared();
        try {
            this.memory = shared.allocate(count * wrSize + sgeBytes + JAVA_LONG.byteSize(), 8);
        } catch (RuntimeException | Error e) {
            shared.close();
            throw e;
        }
        this.arena = shared;
        long sge = count * wrSize;
        for (int i = 0; i < count; i++) {
            WorkRequest<?> r = chain.get(i);
            long at = i * wrSize;
            MemorySegment.copy(r.wr, 0, memory, at, wrSize);
            memory.set(JAVA_LONG, at + NEXT, i + 1 < count ? memory.address() + at + wrSize : 0L);
            int n = r.sges.count();
            memory.set(JAVA_LONG, at + SG_LIST, n == 0 ? 0L : memory.address() + sge);
            r.sges.copyTo(memory, sge);
            sgeAt[i] = sge;
            sgeCount[i] = n;
            maxLength[i] = n == 1 ? r.sges.length(0) : -1;
            length[i] = (int) r.sges.totalLength();
            for (int k = 0; k < n; k++) {
                MemorySegment.Scope scope = r.sges.region(k).callerScope();
                if (scope != null && !scopes.contains(scope)) {
                    scopes.add(scope);
                }
            }
            sge += ScatterGatherList.byteSize(n);
        }
        this.first = memory.address();
        this.badWr = memory.address() + sge;
        this.callerScopes = scopes.isEmpty() ? NO_SCOPES : scopes.toArray(MemorySegment.Scope[]::new);
        this.usesCallerMemory = !scopes.isEmpty();
    }

    /** The requests of the chain that starts at {@code head}, in order. */
    static <R extends WorkRequest<R>> List<R> chain(R head) {
        List<R> chain = new ArrayList<>();
        for (R r = head; r != null; r = r.next) {
            chain.add(r);
        }
        return chain;
    }

    /**
     * Throws {@link IllegalStateException} if the caller closed the arena of memory a request
     * uses. Runs inside {@link #enter()} on every post; the loop is empty unless the chain uses
     * memory the caller registered.
     */
    final void checkCallerMemory() {
        if (usesCallerMemory) {
            checkCallerScopes();
        }
    }

    // Out of line: most prepared requests use regions that own their memory, and their posts
    // then compile only the test above.
    private void checkCallerScopes() {
        for (MemorySegment.Scope scope : callerScopes) {
            if (!scope.isAlive()) {
                throw new IllegalStateException("the arena of memory that " + this + " uses was closed before its"
                        + " memory region: close memory regions before the arena that owns their memory");
            }
        }
    }

    /**
     * {@return whether {@code thread} may post and close this request: any thread for a request
     * made with {@code of}, only the preparing thread for one made with {@code ofConfined}}
     *
     * @param thread the thread asked about
     */
    public final boolean isAccessibleBy(Thread thread) {
        return PostGuard.isAccessibleBy(this, thread);
    }

    /** {@return the number of work requests posted together (1 unless a chain was prepared)} */
    public final int size() {
        return count;
    }

    /** {@return the wr_id of the first work request} */
    public final long wrId() {
        return wrIdOf(0);
    }

    /**
     * {@return the wr_id of work request {@code index} of the chain (not {@code wrId(int)}: that sets the first one's)}
     *
     * @param index {@code 0 <= index < size()}
     */
    public final long wrIdOf(int index) {
        return memory.get(JAVA_LONG, at(index) + WR_ID);
    }

    /** Writes the wr_id of work request {@code index}: no check beyond the index, it is the caller's value. */
    final void setWrId(int index, long wrId) {
        memory.set(JAVA_LONG, at(index) + WR_ID, wrId);
    }

    /**
     * {@return the length of work request {@code index}'s data, the sum of its SGEs}
     *
     * @param index {@code 0 <= index < size()}
     */
    public final int byteLength(int index) {
        return length[checkIndex(index)];
    }

    /**
     * Sets the length of work request {@code index}'s only SGE, up to the length it was
     * prepared with (whose region bounds, inline size and remote size were checked then).
     */
    final void setLength(int index, int bytes) {
        int max = maxLength[checkIndex(index)];
        if (max < 0) {
            throw new IllegalStateException("work request " + index + " of " + this + " has " + sgeCount[index]
                    + " SGEs: only the length of a single SGE can change");
        }
        if (bytes < 0 || bytes > max) {
            throw new IndexOutOfBoundsException("length " + bytes + " of work request " + index + " of " + this
                    + ": it was prepared with " + max + " bytes, the most it may carry");
        }
        memory.set(JAVA_INT, sgeAt[index] + SGE_LENGTH, bytes);
        length[index] = bytes;
    }

    final long at(int index) {
        return checkIndex(index) * wrSize;
    }

    final int checkIndex(int index) {
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException("work request " + index + " of a prepared chain of " + count);
        }
        return index;
    }

    /** The index of the chain's request at {@code address} (the provider's bad_wr), or -1. */
    final int indexOf(long address) {
        long offset = address - first;
        return offset >= 0 && offset < count * wrSize && offset % wrSize == 0 ? (int) (offset / wrSize) : -1;
    }

    /** Whether a post that returned {@code rc} posted nothing for lack of room (ENOMEM at the first request). */
    final boolean refusedForRoom(int rc) {
        return rc == Errno.ENOMEM && (count == 1 || memory.get(JAVA_LONG, badWr - first) == first);
    }

    /** How a failed post names the request the provider stopped at. */
    final String describeBad() {
        int i = indexOf(memory.get(JAVA_LONG, badWr - first));
        return i < 0 ? "work request wr_id " + wrIdOf(0) + " or one chained to it" : describe(i);
    }

    /** Names work request {@code index}, e.g. {@code work request wr_id 5 (SEND)}. */
    abstract String describe(int index);

    @Override
    protected final void release() {
        if (arena != null) {   // null when the allocation failed after the owners adopted this object
            arena.close();
        }
    }
}
