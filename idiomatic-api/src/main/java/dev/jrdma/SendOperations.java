// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_mw;
import dev.jrdma.bindings.generated.ibv_mw_bind_info;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtendedPostVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * The engine behind {@link ExtendedSendQueue}: the batch's state, the staging memory, and the
 * {@code ibv_wr_*} builders and setters, each of which checks its arguments and the batch order,
 * then makes one downcall inside the queue pair's
 * {@code enter()}/{@code exit()}, so that closing the queue pair (or a region, window or address
 * handle, which waits for the domain's posts) from another thread never frees what a call reads.
 * ExtendedSendQueue is the public surface and documentation; it delegates here.
 */
final class SendOperations {
    private static final long BIND_MR = ibv_mw_bind_info.mr$offset();
    private static final long BIND_ADDR = ibv_mw_bind_info.addr$offset();
    private static final long BIND_LENGTH = ibv_mw_bind_info.length$offset();
    private static final long BIND_ACCESS = ibv_mw_bind_info.mw_access_flags$offset();
    /** Where in the scratch memory atomic_write's 8 bytes go (the bind info takes the first 32). */
    private static final long ATOMIC_VALUE = 48;
    static final int FENCE = rdma_h.IBV_SEND_FENCE();
    static final int SIGNALED = rdma_h.IBV_SEND_SIGNALED();
    static final int SOLICITED = rdma_h.IBV_SEND_SOLICITED();
    static final int INLINE = rdma_h.IBV_SEND_INLINE();
    static final int ENOSPC = rdma_h.ENOSPC();
    /** Entries of an inline data list. */
    static final int INLINE_LIST_CAPACITY = 16;
    private static final long DATA_BUF_SIZE = 16;   // struct ibv_data_buf { void *addr; size_t length; }

    private static final int IDLE = 0;
    private static final int STARTED = 1;
    private static final int BUILT = 2;

    final QueuePair qp;
    private final long qpEx;
    final Set<SendOp> ops;
    private final boolean datagram;
    private final ExtendedPostFunctions fn;
    /** Staging for sgeList: the ibv_sge array and the regions behind it. */
    private final ScatterGatherList sgl;
    private final MemorySegment sgeArray;
    /** Staging for inlineDataList: ibv_data_buf entries and the regions behind them. */
    private final MemorySegment dataBufs;
    private final MemoryRegion[] inlineRegions = new MemoryRegion[INLINE_LIST_CAPACITY];
    /** bind_mw's ibv_mw_bind_info and atomic_write's 8 bytes, which the provider copies during the call. */
    private final MemorySegment scratch;

    private int state = IDLE;
    private long wrId;
    private int flags;
    /** The flags the last operation was built with (inline data needs INLINE there). */
    private int builtFlags;
    /** A UD operation was built and has no destination yet. */
    private boolean needsAddress;

    SendOperations(QueuePair qp, long qpEx) {
        this.qp = qp;
        this.qpEx = qpEx;
        this.ops = java.util.Collections.unmodifiableSet(qp.extendedOps);
        this.datagram = qp.type() == QueuePairType.UD;
        this.fn = ExtendedPostFunctions.of(qpEx);
        // An automatic arena: the staging memory lives as long as this object, and every call
        // that hands it to the provider runs inside one method of this object.
        Arena arena = Arena.ofAuto();
        int sges = Math.max(1, qp.capabilities().maxSendSges());
        this.sgeArray = arena.allocate(ScatterGatherList.byteSize(sges), 8);
        this.sgl = new ScatterGatherList(sgeArray, sges);
        this.dataBufs = arena.allocate(DATA_BUF_SIZE * INLINE_LIST_CAPACITY, 8);
        this.scratch = arena.allocate(64, 8);
    }

    // ---- the batch ---------------------------------------------------------------------------

    // The queue pair is entered from start() to complete() or abort(), not around each call: a
    // batch is one post, as far as closing goes (close() waits for it, and a region or window
    // closed meanwhile waits too), and the guard's two atomic adds are paid once per batch rather
    // than once per builder and setter (each drains the store buffer the builders just filled).

    void start() {
        qp.enter();
        try {
            if (state != IDLE) {
                throw new IllegalStateException("a batch on " + qp + " is open: complete() or abort() it first");
            }
            if (!qp.sendAllowed()) {
                throw new IllegalStateException("cannot post to " + qp + ": it is in " + qp.lastState()
                        + ", which takes no send work requests");
            }
            qp.posts.extendedClaim.claim(qp);
            try {
                ExtendedPostVerbs.wrStart(fn.start(), qpEx);
            } catch (RuntimeException | Error e) {
                qp.posts.extendedClaim.release();
                throw e;
            }
        } catch (RuntimeException | Error e) {
            qp.exit();
            throw e;
        }
        state = STARTED;
        needsAddress = false;
    }

    /** ibv_wr_complete; 0 or the errno value (the batch is ended either way). */
    int complete() {
        requireOpen(Verb.IBV_WR_COMPLETE);
        if (needsAddress) {
            abort();
            throw missingAddress();
        }
        try {
            return ExtendedPostVerbs.wrComplete(fn.complete(), qpEx);
        } finally {
            end();
        }
    }

    void abort() {
        requireOpen(Verb.IBV_WR_ABORT);
        try {
            ExtendedPostVerbs.wrAbort(fn.abort(), qpEx);
        } finally {
            end();
        }
    }

    private void end() {
        state = IDLE;
        needsAddress = false;
        qp.posts.extendedClaim.release();
        qp.exit();
    }

    /** Aborts the batch if one is open (the queue pair cannot have been destroyed meanwhile: the batch holds it). */
    void abortIfStarted() {
        if (state != IDLE) {
            abort();
        }
    }

    boolean isStarted() {
        return state != IDLE;
    }

    /** The {@code struct ibv_qp_ex}, for a {@link PreparedExtendedSend} made from this poster. */
    long qpEx() {
        return qpEx;
    }

    /** The provider's functions, read once, for a {@link PreparedExtendedSend}. */
    ExtendedPostFunctions functions() {
        return fn;
    }

    void wrId(long wrId) {
        this.wrId = wrId;
    }

    void flag(int bit, boolean on) {
        flags = on ? flags | bit : flags & ~bit;
    }

    // ---- builders and setters ------------------------------------------------------------------

    void send() {
        beforeOperation(fn.send(), SendOp.SEND, Verb.IBV_WR_SEND);
        ExtendedPostVerbs.wrSend(fn.send(), qpEx);
        afterOperation();
    }

    void sendWithImmediate(int immediate) {
        beforeOperation(fn.sendImm(), SendOp.SEND_WITH_IMM, Verb.IBV_WR_SEND_IMM);
        ExtendedPostVerbs.wrInt(fn.sendImm(), qpEx, Integer.reverseBytes(immediate));
        afterOperation();
    }

    void sendWithInvalidate(int rkey) {
        beforeOperation(fn.sendInv(), SendOp.SEND_WITH_INV, Verb.IBV_WR_SEND_INV);
        ExtendedPostVerbs.wrInt(fn.sendInv(), qpEx, rkey);
        afterOperation();
    }

    void sendTso(MemorySegment header, int mss) {
        if (header.byteSize() > 0xffff || mss < 0 || mss > 0xffff) {
            throw new IllegalArgumentException("TSO header of " + header.byteSize() + " bytes or MSS " + mss
                    + " does not fit 16 bits");
        }
        beforeOperation(fn.sendTso(), SendOp.TSO, Verb.IBV_WR_SEND_TSO);
        ExtendedPostVerbs.wrSendTso(fn.sendTso(), qpEx, header, (short) mss);
        afterOperation();
    }

    void rdmaWrite(RemoteMemory remote, long offset) {
        long address = remoteAddress(remote, offset, 0);
        beforeOperation(fn.rdmaWrite(), SendOp.RDMA_WRITE, Verb.IBV_WR_RDMA_WRITE);
        ExtendedPostVerbs.wrRemote(fn.rdmaWrite(), qpEx, remote.rkey(), address);
        afterOperation();
    }

    void rdmaWriteWithImmediate(RemoteMemory remote, long offset, int immediate) {
        long address = remoteAddress(remote, offset, 0);
        beforeOperation(fn.rdmaWriteImm(), SendOp.RDMA_WRITE_WITH_IMM, Verb.IBV_WR_RDMA_WRITE_IMM);
        ExtendedPostVerbs.wrIntLongInt(fn.rdmaWriteImm(), qpEx, remote.rkey(), address,
                Integer.reverseBytes(immediate));
        afterOperation();
    }

    void rdmaRead(RemoteMemory remote, long offset) {
        long address = remoteAddress(remote, offset, 0);
        beforeOperation(fn.rdmaRead(), SendOp.RDMA_READ, Verb.IBV_WR_RDMA_READ);
        ExtendedPostVerbs.wrRemote(fn.rdmaRead(), qpEx, remote.rkey(), address);
        afterOperation();
    }

    void compareAndSwap(RemoteMemory remote, long offset, long compare, long swap) {
        long address = remoteAddress(remote, offset, 8);
        beforeOperation(fn.cmpSwp(), SendOp.ATOMIC_CMP_AND_SWP, Verb.IBV_WR_ATOMIC_CMP_SWP);
        ExtendedPostVerbs.wrAtomicCmpSwp(fn.cmpSwp(), qpEx, remote.rkey(), address, compare, swap);
        afterOperation();
    }

    void fetchAndAdd(RemoteMemory remote, long offset, long add) {
        long address = remoteAddress(remote, offset, 8);
        beforeOperation(fn.fetchAdd(), SendOp.ATOMIC_FETCH_AND_ADD, Verb.IBV_WR_ATOMIC_FETCH_ADD);
        ExtendedPostVerbs.wrIntLongLong(fn.fetchAdd(), qpEx, remote.rkey(), address, add);
        afterOperation();
    }

    void atomicWrite(RemoteMemory remote, long offset, long value) {
        long address = remoteAddress(remote, offset, 8);
        beforeOperation(fn.atomicWrite(), SendOp.ATOMIC_WRITE, Verb.IBV_WR_ATOMIC_WRITE);
        scratch.set(JAVA_LONG, ATOMIC_VALUE, value);
        ExtendedPostVerbs.wrIntLongLong(fn.atomicWrite(), qpEx, remote.rkey(), address,
                scratch.address() + ATOMIC_VALUE);
        afterOperation();
    }

    void bindMemoryWindow(MemoryWindow mw, int rkey, MemoryRegion mr, long offset, long length, Set<Access> access) {
        mr.checkUsable();
        mr.checkRange(offset, length);
        if (mw.type() != MemoryWindowType.TYPE_2) {
            throw new IllegalArgumentException(mw + " is bound with QueuePair.bind (ibv_bind_mw); ibv_wr_bind_mw binds"
                    + " type 2 windows only");
        }
        ProtectionDomain pd = qp.protectionDomain();
        if (mw.protectionDomain() != pd || mr.protectionDomain() != pd) {
            throw new IllegalArgumentException(mw + " and " + mr + " must be in " + pd + ", the queue pair's");
        }
        try (var _ = NativeResource.hold(mw)) {
            mw.bindsThrough(qp);
            beforeOperation(fn.bindMw(), SendOp.BIND_MW, Verb.IBV_WR_BIND_MW);
            MemorySegment info = scratch;
            info.set(JAVA_LONG, BIND_MR, mr.handle().address());
            info.set(JAVA_LONG, BIND_ADDR, mr.address() + offset);
            info.set(JAVA_LONG, BIND_LENGTH, length);
            info.set(JAVA_INT, BIND_ACCESS, Access.flags(access));
            ExtendedPostVerbs.wrBindMw(fn.bindMw(), qpEx, mw.handle().address(), rkey, info.address());
            // The provider names the window by ibv_mw.rkey (librxe copies it into the request), and
            // the device refuses a bind that does not name its current key, which for a type 2
            // window only the application knows: the key this bind gives it.
            ibv_mw.rkey(mw.handle(), rkey);
            mw.boundByExtendedPost(rkey, mr, offset, length);
            afterOperation();
        }
    }

    void localInvalidate(int rkey) {
        beforeOperation(fn.localInv(), SendOp.LOCAL_INV, Verb.IBV_WR_LOCAL_INV);
        ExtendedPostVerbs.wrInt(fn.localInv(), qpEx, rkey);
        afterOperation();
    }

    void sge(MemoryRegion mr, long offset, int length) {
        checkRegion(mr, offset, length);
        beforeSetter(fn.setSge(), Verb.IBV_WR_SET_SGE);
        ExtendedPostVerbs.wrIntLongInt(fn.setSge(), qpEx, mr.lkey(), mr.address() + offset, length);
    }

    void sgeList(int count) {
        if (count < 0 || count > sgl.capacity()) {
            throw new IndexOutOfBoundsException("SGE list of " + count + " entries; " + qp + " takes "
                    + sgl.capacity());
        }
        sgl.count(count);
        sgl.check(qp.protectionDomain(), -1);
        beforeSetter(fn.setSgeList(), Verb.IBV_WR_SET_SGE_LIST);
        ExtendedPostVerbs.wrLongLong(fn.setSgeList(), qpEx, count, sgeArray.address());
    }

    void inlineData(MemorySegment data) {
        if (!data.isNative()) {
            throw new IllegalArgumentException("inline data must be native memory: the provider reads it by address");
        }
        checkInlineSize(data.byteSize());
        beforeSetter(fn.setInline(), Verb.IBV_WR_SET_INLINE_DATA);
        requireInlineFlag(Verb.IBV_WR_SET_INLINE_DATA);
        ExtendedPostVerbs.wrSetInlineData(fn.setInline(), qpEx, data);
    }

    void inlineEntry(int index, MemoryRegion mr, long offset, int length) {
        if (index < 0 || index >= INLINE_LIST_CAPACITY) {
            throw new IndexOutOfBoundsException("inline entry " + index + " of " + INLINE_LIST_CAPACITY);
        }
        checkRegion(mr, offset, length);
        long base = index * 16L;
        dataBufs.set(JAVA_LONG, base, mr.address() + offset);
        dataBufs.set(JAVA_LONG, base + 8, length);
        inlineRegions[index] = mr;
    }

    void inlineDataList(int count) {
        if (count < 0 || count > INLINE_LIST_CAPACITY) {
            throw new IndexOutOfBoundsException("inline list of " + count + " entries");
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            MemoryRegion mr = inlineRegions[i];
            if (mr == null) {
                throw new IllegalStateException("inline entry " + i + " was never set");
            }
            mr.checkUsable();
            total += dataBufs.get(JAVA_LONG, i * 16L + 8);
        }
        checkInlineSize(total);
        beforeSetter(fn.setInlineList(), Verb.IBV_WR_SET_INLINE_DATA_LIST);
        requireInlineFlag(Verb.IBV_WR_SET_INLINE_DATA_LIST);
        ExtendedPostVerbs.wrLongLong(fn.setInlineList(), qpEx, count, dataBufs.address());
    }

    void udAddress(AddressHandle ah, int remoteQpn, int remoteQkey) {
        if (ah.protectionDomain() != qp.protectionDomain()) {
            throw new IllegalArgumentException(ah + " is not in " + qp.protectionDomain());
        }
        beforeSetter(fn.setUdAddr(), Verb.IBV_WR_SET_UD_ADDR);
        ExtendedPostVerbs.wrSetUdAddr(fn.setUdAddr(), qpEx, ah.handle().address(), remoteQpn, remoteQkey);
        needsAddress = false;
    }

    void xrcSrqNumber(int srqNumber) {
        beforeSetter(fn.setXrcSrqn(), Verb.IBV_WR_SET_XRC_SRQN);
        ExtendedPostVerbs.wrInt(fn.setXrcSrqn(), qpEx, srqNumber);
    }

    void sgeEntry(int index, MemoryRegion mr, long offset, int length) {
        sgl.set(index, mr, offset, length);
    }

    /** Before a builder: a batch is open, the previous UD request has its address, the op exists; writes wr_id and flags. */
    private void beforeOperation(MemorySegment function, SendOp op, Verb verb) {
        requireOpen(verb);
        if (needsAddress) {
            throw missingAddress();
        }
        if (function.address() == 0) {
            if (!ops.contains(op)) {
                throw new IllegalStateException(verb + " on " + qp + ": the queue pair was created for " + ops
                        + ", not " + op + " (add it to extendedPost(...))");
            }
            throw RdmaException.of(verb, qp, Errno.EOPNOTSUPP, "the provider has no " + op + " builder");
        }
        ExtendedPostVerbs.setRequest(qpEx, wrId, flags);
    }

    /** After a builder returned. */
    private void afterOperation() {
        state = BUILT;
        builtFlags = flags;
        needsAddress = datagram;
    }

    /** Before a setter: an operation was built in this batch, and the provider has the setter. */
    private void beforeSetter(MemorySegment function, Verb verb) {
        requireOpen(verb);
        if (state != BUILT) {
            throw new IllegalStateException(verb + " on " + qp + " before any operation of the batch: a setter"
                    + " changes the last work request built");
        }
        if (function.address() == 0) {
            throw RdmaException.of(verb, qp, Errno.EOPNOTSUPP, "the provider does not implement it for "
                    + qp.type() + " queue pairs");
        }
    }

    private void requireOpen(Verb verb) {
        if (state == IDLE) {
            throw new IllegalStateException(verb + " on " + qp + " outside a batch: call start() first");
        }
    }

    private IllegalStateException missingAddress() {
        return new IllegalStateException(qp + " is a UD queue pair: set the destination of each operation with"
                + " udAddress(ah, qpn, qkey) before the next one");
    }

    private void checkRegion(MemoryRegion mr, long offset, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        mr.checkUsable();
        mr.checkRange(offset, length);
        if (mr.protectionDomain() != qp.protectionDomain()) {
            throw new IllegalArgumentException(mr + " is in " + mr.protectionDomain() + ", but " + qp + " is in "
                    + qp.protectionDomain());
        }
    }

    private void checkInlineSize(long bytes) {
        int max = qp.capabilities().maxInlineData();
        if (bytes > max) {
            throw new IllegalArgumentException(bytes + " bytes of inline data; " + qp + " takes " + max
                    + " (maxInlineData when it was built)");
        }
    }

    private void requireInlineFlag(Verb verb) {
        if ((builtFlags & INLINE) == 0) {
            throw new IllegalStateException(verb + " on " + qp + ": the operation was built without inline(true);"
                    + " the provider copies the flags when it builds the operation");
        }
    }


    private static long remoteAddress(RemoteMemory remote, long offset, int atLeast) {
        if (offset < 0 || offset > remote.length() - atLeast) {
            throw new IndexOutOfBoundsException("offset " + offset + " is outside " + remote);
        }
        return remote.address() + offset;
    }
}
