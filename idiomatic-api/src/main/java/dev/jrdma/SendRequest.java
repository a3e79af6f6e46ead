// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_send_wr;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * A send work request ({@code struct ibv_send_wr}) that lives in native memory: build it once,
 * post it with {@link QueuePair#post(SendRequest)}, change a field (wr_id, SGE, remote address,
 * ...) and post it again. Posting allocates nothing. The request may be re-posted or changed
 * as soon as {@code post} returns: the provider copies it; the memory its SGEs point to must
 * stay untouched until the completion arrives.
 *
 * <p>Defaults: opcode {@link SendOpcode#SEND}, signalled, not inline, no SGEs. Not thread-safe.
 */
public final class SendRequest extends WorkRequest<SendRequest> {
    private static final int FENCE = 1;
    private static final int SIGNALED = 1 << 1;
    private static final int SOLICITED = 1 << 2;
    private static final int INLINE = 1 << 3;
    private static final long WR_SIZE = ibv_send_wr.layout().byteSize();

    private final MemorySegment rdma;
    private final MemorySegment atomic;
    private final MemorySegment ud;
    private AddressHandle addressHandle;
    private SendOpcode opcode = SendOpcode.SEND;
    private int flags = SIGNALED;
    private boolean remoteSet;
    private long remoteAddress;
    private long remoteLength;
    private int rkey;
    private int remoteQpn;
    private int remoteQkey;
    private long compareAdd;
    private long swap;
    /** What a BIND_MW request binds; null until {@link #bind} is called. */
    private WindowBinding binding;
    /** Whether {@link #invalidate} set the key a LOCAL_INV or SEND_WITH_INV names. */
    private boolean invalidateSet;
    /**
     * The queue pair the opcode-dependent fields were last checked against and written for;
     * null after any change that needs a new check. Re-posting an unchanged request (or one
     * whose wr_id, signalled/fence/solicited flag or immediate data changed) only re-checks
     * what can change behind its back: that its regions and address handle are still open.
     */
    private QueuePair preparedFor;

    /** A request with room for one SGE. */
    public SendRequest() {
        this(1);
    }

    /**
     * A request with room for {@code maxSges} scatter/gather entries.
     *
     * @param maxSges at least 1
     */
    public SendRequest(int maxSges) {
        super(WR_SIZE, maxSges);
        MemorySegment union = ibv_send_wr.wr(wr);
        this.rdma = ibv_send_wr.wr.rdma(union);
        this.atomic = ibv_send_wr.wr.atomic(union);
        this.ud = ibv_send_wr.wr.ud(union);
        ibv_send_wr.send_flags(wr, flags);
    }

    @Override
    void changed() {
        preparedFor = null;
    }

    @Override
    String describe() {
        return "work request wr_id " + wrId() + " (" + opcode + ")";
    }

    /**
     * Sets the operation.
     *
     * @param opcode SEND, RDMA WRITE/READ, atomics, with or without immediate data
     * @return this request
     */
    public SendRequest opcode(SendOpcode opcode) {
        this.opcode = opcode;
        this.preparedFor = null;
        return this;
    }

    /** {@return the operation} */
    public SendOpcode opcode() {
        return opcode;
    }

    /** {@return the number of SGEs used} */
    public int sgeCount() {
        return sges.count();
    }

    /**
     * Sets whether a completion is generated for this request (default true).
     *
     * @param signaled false to skip the completion (the queue pair must not signal all)
     * @return this request
     */
    public SendRequest signaled(boolean signaled) {
        return flag(SIGNALED, signaled);
    }

    /**
     * Sets whether the data is copied into the work request at post time (up to the QP's max inline size).
     *
     * @param inline true to send inline: the memory may be reused as soon as the post returns
     * @return this request
     */
    public SendRequest inline(boolean inline) {
        return flag(INLINE, inline);
    }

    /**
     * Sets whether this request waits for earlier RDMA READs and atomics to finish.
     *
     * @param fence true for a fenced request
     * @return this request
     */
    public SendRequest fence(boolean fence) {
        return flag(FENCE, fence);
    }

    /**
     * Sets whether the receiver's solicited-only completion notification fires.
     *
     * @param solicited true to set the solicited event bit
     * @return this request
     */
    public SendRequest solicited(boolean solicited) {
        return flag(SOLICITED, solicited);
    }

    private SendRequest flag(int bit, boolean on) {
        int changed = on ? flags | bit : flags & ~bit;
        if (changed != flags) {
            flags = changed;
            // Written at once, so toggling SIGNALED between posts (completion moderation) needs
            // no new check; only INLINE changes what a post must validate.
            ibv_send_wr.send_flags(wr, changed);
            if (bit == INLINE) {
                preparedFor = null;
            }
        }
        return this;
    }

    /**
     * Sets the remote memory of an RDMA READ/WRITE or atomic operation.
     *
     * @param remote the peer's address, length and rkey
     * @return this request
     */
    public SendRequest remote(RemoteMemory remote) {
        return remote(remote.address(), remote.length(), remote.rkey());
    }

    /**
     * The remote memory of an RDMA READ/WRITE or atomic operation, as its parts (the peer's
     * address, the length it exposes there, its rkey): changes the target without creating a
     * {@link RemoteMemory}.
     *
     * @param address the peer's virtual address
     * @param length  the bytes exposed there
     * @param rkey    the peer's remote key
     * @return this request
     */
    public SendRequest remote(long address, long length, int rkey) {
        if (length < 0) {
            throw new IllegalArgumentException("negative remote length " + length);
        }
        this.remoteSet = true;
        this.remoteAddress = address;
        this.remoteLength = length;
        this.rkey = rkey;
        this.preparedFor = null;
        return this;
    }

    /**
     * The destination of a send on a UD queue pair: the route, the remote QPN and the remote
     * Q_Key ({@link ConnectionOptions#qkey()} of the receiver).
     *
     * @param ah         the route to the destination
     * @param remoteQpn  the destination QPN
     * @param remoteQkey the destination's Q_Key
     * @return this request
     */
    public SendRequest datagram(AddressHandle ah, int remoteQpn, int remoteQkey) {
        ah.checkOpen();
        this.addressHandle = ah;
        this.remoteQpn = remoteQpn;
        this.remoteQkey = remoteQkey;
        this.preparedFor = null;
        return this;
    }

    /**
     * Sets 32 bits of immediate data for SEND_WITH_IMM/RDMA_WRITE_WITH_IMM, in host order.
     *
     * @param value delivered in the receiver's completion
     * @return this request
     */
    public SendRequest immediateData(int value) {
        // imm_data is big-endian on the wire and in the struct; WorkCompletion swaps it back.
        ibv_send_wr.imm_data(wr, Integer.reverseBytes(value));
        return this;
    }

    /**
     * The key a {@link SendOpcode#LOCAL_INV} invalidates on this side, or a
     * {@link SendOpcode#SEND_WITH_INV} invalidates at the receiver: typically a type 2 memory
     * window's {@link MemoryWindow#rkey()}. Shares its field with the immediate data.
     *
     * @param rkey the key to invalidate
     * @return this request
     */
    public SendRequest invalidate(int rkey) {
        ibv_send_wr.invalidate_rkey(wr, rkey);
        this.invalidateSet = true;
        this.preparedFor = null;
        return this;
    }

    /**
     * What a {@link SendOpcode#BIND_MW} request binds: type 2 window {@code mw} to
     * {@code [offset, offset + length)} of {@code mr} (registered with {@link Access#MW_BIND}),
     * with {@code access} rights for peers. Every post of the request binds the window anew
     * with its next key ({@link MemoryWindow#nextRkey}), which {@link MemoryWindow#rkey()} and
     * {@link MemoryWindow#remote()} report from then on; a post the provider refuses gives the
     * key back. A type 2 window must be invalidated before it is bound again, and peers may
     * use it only through the queue pair that bound it. One bind per window in a chain.
     *
     * @param mw     a type 2 window of the queue pair's protection domain
     * @param mr     the region to expose a part of
     * @param offset from the start of the region
     * @param length the number of bytes, at least 1
     * @param access the rights peers get through the window
     * @return this request
     */
    public SendRequest bind(MemoryWindow mw, MemoryRegion mr, long offset, long length, Set<Access> access) {
        if (mw.type() != MemoryWindowType.TYPE_2) {
            throw new IllegalArgumentException(mw + " is bound with QueuePair.bind, not with a BIND_MW work request");
        }
        this.binding = new WindowBinding(mw, mr, offset, length, access);
        this.preparedFor = null;
        return this;
    }

    /**
     * Sets the value added by fetch-and-add, or compared by compare-and-swap.
     *
     * @param value the 64-bit operand
     * @return this request
     */
    public SendRequest compareAdd(long value) {
        this.compareAdd = value;
        this.preparedFor = null;
        return this;
    }

    /**
     * Sets the value compare-and-swap stores when the comparison succeeds.
     *
     * @param value the 64-bit operand
     * @return this request
     */
    public SendRequest swap(long value) {
        this.swap = value;
        this.preparedFor = null;
        return this;
    }

    /** The remote length {@link #remote} set (what a prepared request's offsets are checked against). */
    long remoteLength() {
        return remoteLength;
    }

    /** The destination of a UD send, or null. */
    AddressHandle addressHandle() {
        return addressHandle;
    }

    /** Validates every request of the chain for {@code qp} and writes the opcode-dependent fields. */
    void prepare(QueuePair qp) {
        for (SendRequest r = this; r != null; r = r.next) {
            try {
                r.prepareOne(qp);
            } catch (RuntimeException e) {
                // Nothing is posted: give back the window keys the requests before r claimed.
                for (SendRequest p = this; p != r; p = p.next) {
                    p.unclaim();
                }
                throw e;
            }
        }
    }

    /**
     * The post of this chain failed at {@code badAddress} (the provider's bad_wr; 0 or unknown
     * when none of it was posted): the requests from there on were not posted, so the window
     * keys their binds claimed go back. Failure path only.
     */
    void unposted(long badAddress) {
        boolean found = false;
        for (SendRequest r = this; r != null; r = r.next) {
            found |= r.address() == badAddress;
        }
        for (SendRequest r = this, from = found ? null : this; r != null; r = r.next) {
            if (from == null && r.address() == badAddress) {
                from = r;
            }
            if (from != null) {
                r.unclaim();
            }
        }
    }

    private void unclaim() {
        if (binding != null && opcode == SendOpcode.BIND_MW) {
            binding.unclaim();
        }
    }

    private void prepareOne(QueuePair qp) {
        if (preparedFor != qp) {
            prepareFully(qp);
            return;
        }
        if (!sges.usableIn(qp.protectionDomain())) {
            sges.check(qp.protectionDomain(), wrId());
        }
        if (addressHandle != null && qp.type() == QueuePairType.UD) {
            addressHandle.checkOpen();
        }
    }

    // Out of line so that a re-post compiles small: inlined into post(), this validation made
    // post() large enough that C2 stopped inlining post() into a caller's polling loop.
    private void prepareFully(QueuePair qp) {
        long id = wrId();
        sges.check(qp.protectionDomain(), id);
        QueuePairType type = qp.type();
        boolean oneSided = opcode == SendOpcode.RDMA_WRITE || opcode == SendOpcode.RDMA_WRITE_WITH_IMM
                || opcode == SendOpcode.RDMA_READ;
        boolean atomicOp = opcode == SendOpcode.ATOMIC_CMP_AND_SWP || opcode == SendOpcode.ATOMIC_FETCH_AND_ADD;
        if (type == QueuePairType.UD) {
            if (opcode != SendOpcode.SEND && opcode != SendOpcode.SEND_WITH_IMM) {
                throw new IllegalArgumentException("wr_id " + id + ": UD queue pairs only SEND, not " + opcode);
            }
            // A UD send without an address handle would make the provider dereference NULL.
            if (addressHandle == null) {
                throw new IllegalStateException("wr_id " + id + ": a UD send needs a destination (datagram(...))");
            }
            addressHandle.checkOpen();
            if (addressHandle.protectionDomain() != qp.protectionDomain()) {
                throw new IllegalArgumentException("wr_id " + id + ": " + addressHandle + " is not in "
                        + qp.protectionDomain());
            }
            ibv_send_wr.wr.ud.ah(ud, addressHandle.handle());
            ibv_send_wr.wr.ud.remote_qpn(ud, remoteQpn);
            ibv_send_wr.wr.ud.remote_qkey(ud, remoteQkey);
        }
        if (type == QueuePairType.UC && opcode == SendOpcode.SEND_WITH_INV) {
            throw new IllegalArgumentException("wr_id " + id + ": SEND_WITH_INV is an RC operation, not available on UC");
        }
        boolean windowOp = opcode == SendOpcode.BIND_MW || opcode == SendOpcode.LOCAL_INV;
        if (windowOp && sges.count() != 0) {
            throw new IllegalArgumentException("wr_id " + id + ": " + opcode + " carries no data; set sgeCount(0)");
        }
        if (opcode == SendOpcode.BIND_MW && binding == null) {
            throw new IllegalStateException("wr_id " + id + ": BIND_MW needs a window to bind (bind(...))");
        }
        if ((opcode == SendOpcode.LOCAL_INV || opcode == SendOpcode.SEND_WITH_INV) && !invalidateSet) {
            throw new IllegalStateException("wr_id " + id + ": " + opcode + " needs the key to invalidate (invalidate(...))");
        }
        if (type == QueuePairType.UC && (opcode == SendOpcode.RDMA_READ || atomicOp)) {
            throw new IllegalArgumentException("wr_id " + id + ": " + opcode + " is not available on UC queue pairs");
        }
        if ((oneSided || atomicOp) && !remoteSet) {
            throw new IllegalStateException("wr_id " + id + ": " + opcode + " needs remote memory (remote(...))");
        }
        if ((flags & INLINE) != 0) {
            if (opcode == SendOpcode.RDMA_READ || atomicOp || windowOp) {
                throw new IllegalArgumentException("wr_id " + id + ": " + opcode + " cannot be inline");
            }
            if (sges.totalLength() > qp.capabilities().maxInlineData()) {
                throw new IllegalArgumentException("wr_id " + id + ": " + sges.totalLength() + " bytes inline, but "
                        + qp + " allows " + qp.capabilities().maxInlineData());
            }
        }
        if (oneSided && sges.totalLength() > remoteLength) {
            throw new IllegalArgumentException("wr_id " + id + ": " + sges.totalLength()
                    + " bytes do not fit the remote memory " + new RemoteMemory(remoteAddress, remoteLength, rkey));
        }
        if (atomicOp) {
            if (sges.count() != 1 || sges.length(0) != 8) {
                throw new IllegalArgumentException("wr_id " + id + ": an atomic operation needs exactly one 8-byte SGE"
                        + " for the old value");
            }
            if ((remoteAddress & 7) != 0 || remoteLength < 8) {
                throw new IllegalArgumentException("wr_id " + id + ": the target of an atomic operation must be 8 bytes"
                        + " at an 8-byte aligned address, not 0x" + Long.toHexString(remoteAddress) + "+" + remoteLength);
            }
        }
        ibv_send_wr.opcode(wr, opcode.value());
        ibv_send_wr.send_flags(wr, flags);
        ibv_send_wr.num_sge(wr, sges.count());
        // rdma and atomic overlap in a union and place rkey differently: write the one the opcode reads.
        if (atomicOp) {
            ibv_send_wr.wr.atomic.remote_addr(atomic, remoteAddress);
            ibv_send_wr.wr.atomic.rkey(atomic, rkey);
            ibv_send_wr.wr.atomic.compare_add(atomic, compareAdd);
            ibv_send_wr.wr.atomic.swap(atomic, swap);
        } else if (oneSided) {
            ibv_send_wr.wr.rdma.remote_addr(rdma, remoteAddress);
            ibv_send_wr.wr.rdma.rkey(rdma, rkey);
        }
        if (opcode == SendOpcode.BIND_MW) {
            // The provider refuses a bind with immediate data (it shares invalidate_rkey's field).
            ibv_send_wr.imm_data(wr, 0);
            invalidateSet = false;
            binding.write(wr, qp);
            return;   // not preparedFor: every post claims the window's next key
        }
        preparedFor = qp;
    }
}
