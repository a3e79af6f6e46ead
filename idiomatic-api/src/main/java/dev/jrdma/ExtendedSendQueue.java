// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtendedPostVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * The extended post API of a queue pair ({@code struct ibv_qp_ex}, the {@code ibv_wr_*}
 * functions): work requests are built straight into the send queue by one call per operation
 * and one per data setter, and posted together, instead of being described in a
 * {@code struct ibv_send_wr} chain that the provider then copies. From {@link #of(QueuePair)},
 * for a queue pair built with {@link QueuePair.Builder#extendedPost(SendOp...)}.
 *
 * <pre>{@code
 * ExtendedSendQueue sq = ExtendedSendQueue.of(qp);           // once
 * try (var batch = sq.start()) {                              // ibv_wr_start
 *     batch.wrId(1).signaled(true).rdmaWrite(remote, 0).sge(mr, 0, 4096);
 *     batch.wrId(2).send().sge(mr, 4096, 64);
 *     batch.complete();                                       // ibv_wr_complete: both posted
 * }                                                           // not completed: ibv_wr_abort
 * }</pre>
 *
 * <p>The order is enforced, because the provider does not check it: between {@link #start()}
 * and {@link #complete()} the provider holds the send queue's lock (a second start on the same
 * queue pair would spin forever), and a data setter writes into the last work request built (one
 * called before any would rewrite a request already posted). So an operation outside a batch, a
 * setter before an operation, a second start, an operation the queue pair was not created for,
 * or a UD operation without {@link #udAddress} throws {@link IllegalStateException} before any
 * native code runs; {@link #close()} aborts a batch that was not completed, so that an exception
 * inside a try-with-resources block never leaves the queue locked. Closing this object does not
 * close the queue pair.
 *
 * <p>The send queue is claimed in Java before {@code ibv_wr_start} (one word per queue pair,
 * shared by every poster of it and by {@link PreparedExtendedSend}): a start while this thread
 * has a batch open on the queue pair through another poster throws IllegalStateException, and
 * one while another thread has waits for that batch to end, in Java, rather than spinning in
 * the provider's lock inside a critical downcall, where the JVM cannot reach a safepoint.
 * A thread that posts alone on the queue pair can take its send queue once
 * ({@link #ownSendQueue()}): its posts then skip the claim's atomic instruction, and other
 * threads' are refused. {@code ibv_post_send} on the same queue pair takes the same lock and
 * does not claim: do not mix it with a batch from another thread at the same time.
 *
 * <p>A loop that posts the same request again and again pays the checks above at every call
 * for nothing: {@link PreparedExtendedSend#of(ExtendedSendQueue, SendRequest)} checks it once,
 * and its post makes the downcalls with none between them.
 *
 * <p>A batch is one post as far as closing goes: closing the queue pair (or its PD, CQ, context,
 * or a region or window the batch uses) from another thread waits until the open batch ends,
 * then makes {@link #start()} throw IllegalStateException. So end a batch before closing its
 * queue pair on the same thread (close() would wait for it in vain, and give up after 30 s).
 *
 * <p>{@link #wrId}, {@link #signaled}, {@link #fence}, {@link #solicited} and {@link #inline}
 * are written into {@code ibv_qp_ex.wr_id} and {@code wr_flags} before each operation, and stay
 * set for the following ones, as in C.
 *
 * <p>Allocation-free once created; not thread-safe (one poster per queue pair and thread, as
 * for {@link QueuePair#post(SendRequest)}).
 */
public final class ExtendedSendQueue implements AutoCloseable {
    private final SendOperations operations;

    /** Package-private for the stub-provider benchmark, which builds one over a fake {@code ibv_qp_ex}. */
    ExtendedSendQueue(QueuePair qp, long qpEx) {
        this.operations = new SendOperations(qp, qpEx);
    }

    /**
     * The extended post API of {@code qp}, which must have been built with
     * {@link QueuePair.Builder#extendedPost(SendOp...)}.
     *
     * @param qp the queue pair
     * @return its poster; create one per thread that posts (one at a time per queue pair)
     * @throws IllegalStateException when the queue pair was built without extendedPost, or is closed
     */
    @Reaches("ibv_qp_to_qp_ex")
    public static ExtendedSendQueue of(QueuePair qp) {
        if (qp.extendedOps == null) {
            throw new IllegalStateException(qp + " was built without extendedPost(...): ibv_qp_to_qp_ex has no"
                    + " extended post API for it");
        }
        try (var _ = NativeResource.hold(qp)) {
            MemorySegment qpEx = ExtendedPostVerbs.ibv_qp_to_qp_ex(qp.handle());
            if (qpEx.address() == 0) {
                throw RdmaException.of(Verb.IBV_QP_TO_QP_EX, qp, Errno.EOPNOTSUPP,
                        "the provider created it without struct ibv_qp_ex");
            }
            return new ExtendedSendQueue(qp, qpEx.address());
        }
    }

    /** The engine, for a {@link PreparedExtendedSend} made from this poster. */
    SendOperations engine() {
        return operations;
    }

    /** {@return the queue pair} */
    public QueuePair queuePair() {
        return operations.qp;
    }

    /** {@return the operations the queue pair was created for} */
    public Set<SendOp> operations() {
        return operations.ops;
    }

    /**
     * Opens a batch ({@code ibv_wr_start}): takes the send queue until {@link #complete()},
     * {@link #abort()} or {@link #close()}.
     *
     * @return this poster, to build the batch's work requests with (and close)
     * @throws IllegalStateException when a batch is open, the queue pair cannot send in its
     *                               state (RESET, INIT, RTR, ERR), or it is closed
     */
    @Reaches("ibv_wr_start")
    public ExtendedSendQueue start() {
        operations.start();
        return this;
    }


    /**
     * Posts the batch ({@code ibv_wr_complete}) and ends it. On failure nothing of the batch was
     * posted and the batch is ended all the same.
     *
     * @throws RdmaException naming the errno, e.g. ENOSPC when the send queue had no room or an
     *                       SGE list or inline data exceeded the queue pair's capabilities
     */
    @Reaches("ibv_wr_complete")
    public void complete() {
        int rc = operations.complete();
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_WR_COMPLETE, operations.qp, rc, "nothing of the batch was posted");
        }
    }


    /**
     * As {@link #complete()}, but a full send queue is an answer: false (nothing posted, the
     * batch ended, nothing allocated) when the provider had no room (ENOSPC or ENOMEM).
     *
     * @return whether the batch was posted
     */
    @Reaches("ibv_wr_complete")
    public boolean tryComplete() {
        int rc = operations.complete();
        if (rc == 0) {
            return true;
        }
        if (rc == Errno.ENOMEM || rc == SendOperations.ENOSPC) {
            return false;
        }
        throw RdmaException.of(Verb.IBV_WR_COMPLETE, operations.qp, rc, "nothing of the batch was posted");
    }


    /** Drops the batch ({@code ibv_wr_abort}): nothing of it is posted. */
    @Reaches("ibv_wr_abort")
    public void abort() {
        operations.abort();
    }


    /** Aborts the batch if one is open ({@code ibv_wr_abort}); does nothing otherwise. */
    @Override
    @Reaches("ibv_wr_abort")
    public void close() {
        operations.abortIfStarted();
    }


    /** {@return whether a batch is open} */
    public boolean isStarted() {
        return operations.isStarted();
    }

    /**
     * Makes the queue pair's send queue (for the extended post) the calling thread's, until
     * {@link #releaseSendQueue()} or the thread's end: the opt-in rule under which its posts skip
     * the claim. Its {@link PreparedExtendedSend} posts then compare one field instead of a
     * compare-and-set and a release store, and its batches likewise; every other thread's batch
     * start and extended post on the queue pair throws {@link WrongThreadException} naming this
     * thread, at once, while it runs. Its own batch left open still makes its next post throw
     * IllegalStateException. Once it has ended, the next claim of another thread gives the send
     * queue back to all (or that thread may take it). For a loop that alone posts on its queue
     * pair, as perftest's and the CLI's do. Does nothing when this thread owns it already.
     *
     * @return this poster
     * @throws WrongThreadException  when another thread, alive, owns it
     * @throws IllegalStateException when this thread has a batch open on it, or a thread that
     *                               owned it ended with a batch open (the provider's lock is held)
     */
    public ExtendedSendQueue ownSendQueue() {
        operations.qp.posts.extendedClaim.own(operations.qp);
        return this;
    }

    /**
     * Ends {@link #ownSendQueue()}: called by the owner (no batch open), or by any thread once
     * the owner has ended. Does nothing when no thread owns it.
     *
     * @throws WrongThreadException  when another thread, alive, owns it
     * @throws IllegalStateException when the owner has a batch open
     */
    public void releaseSendQueue() {
        operations.qp.posts.extendedClaim.disown(operations.qp);
    }

    /** {@return the thread that owns the queue pair's send queue ({@link #ownSendQueue()}), or null} */
    public Thread sendQueueOwner() {
        return operations.qp.posts.extendedClaim.owner();
    }

    /**
     * Sets the wr_id of the next operations' completions.
     *
     * @param wrId the work request id
     * @return this poster
     */
    public ExtendedSendQueue wrId(long wrId) {
        operations.wrId(wrId);
        return this;
    }

    /**
     * Sets whether the next operations generate a completion ({@code IBV_SEND_SIGNALED}).
     *
     * @param signaled true for a completion
     * @return this poster
     */
    public ExtendedSendQueue signaled(boolean signaled) {
        operations.flag(SendOperations.SIGNALED, signaled);
        return this;
    }

    /**
     * Sets whether the next operations wait for earlier READs and atomics ({@code IBV_SEND_FENCE}).
     *
     * @param fence true to fence
     * @return this poster
     */
    public ExtendedSendQueue fence(boolean fence) {
        operations.flag(SendOperations.FENCE, fence);
        return this;
    }

    /**
     * Sets whether the next operations are solicited events at the receiver ({@code IBV_SEND_SOLICITED}).
     *
     * @param solicited true for solicited
     * @return this poster
     */
    public ExtendedSendQueue solicited(boolean solicited) {
        operations.flag(SendOperations.SOLICITED, solicited);
        return this;
    }

    /**
     * Sets whether the next operations carry inline data ({@code IBV_SEND_INLINE}); needed
     * before an operation whose data {@link #inlineData} or {@link #inlineDataList} sets,
     * because the provider copies the flags when it builds the operation.
     *
     * @param inline true for inline data
     * @return this poster
     */
    public ExtendedSendQueue inline(boolean inline) {
        operations.flag(SendOperations.INLINE, inline);
        return this;
    }



    // ---- the operations and setters: checked and called in SendOperations ---------------------

    /**
     * Builds a SEND ({@code ibv_wr_send}); its data from {@link #sge}, {@link #sgeList} or inline data.
     *
     * @return this poster
     */
    @Reaches("ibv_wr_send")
    public ExtendedSendQueue send() {
        operations.send();
        return this;
    }

    /**
     * Builds a SEND with 32 bits of immediate data ({@code ibv_wr_send_imm}).
     *
     * @param immediate the immediate data (host order; sent in network order)
     * @return this poster
     */
    @Reaches("ibv_wr_send_imm")
    public ExtendedSendQueue sendWithImmediate(int immediate) {
        operations.sendWithImmediate(immediate);
        return this;
    }

    /**
     * Builds a SEND that invalidates {@code rkey} at the receiver ({@code ibv_wr_send_inv}): a type 2
     * memory window (or fast-registered region) of the receiver's.
     *
     * @param rkey the remote key the receiver invalidates
     * @return this poster
     */
    @Reaches("ibv_wr_send_inv")
    public ExtendedSendQueue sendWithInvalidate(int rkey) {
        operations.sendWithInvalidate(rkey);
        return this;
    }

    /**
     * Builds a TCP segmentation offload send ({@code ibv_wr_send_tso}); UD and raw packet queue pairs
     * of devices with {@link DeviceAttributes#maxTsoBytes()} above 0.
     *
     * @param header the packet headers, copied during the call
     * @param mss    the maximum segment size
     * @return this poster
     */
    @Reaches("ibv_wr_send_tso")
    public ExtendedSendQueue sendTso(MemorySegment header, int mss) {
        operations.sendTso(header, mss);
        return this;
    }

    /**
     * Builds an RDMA WRITE to {@code remote} at {@code offset} ({@code ibv_wr_rdma_write}); the data from the setter that follows.
     *
     * @param remote the peer's memory
     * @param offset from the start of {@code remote}
     * @return this poster
     */
    @Reaches("ibv_wr_rdma_write")
    public ExtendedSendQueue rdmaWrite(RemoteMemory remote, long offset) {
        operations.rdmaWrite(remote, offset);
        return this;
    }

    /**
     * Builds an RDMA WRITE with immediate data ({@code ibv_wr_rdma_write_imm}), which consumes a receive at the peer.
     *
     * @param remote    the peer's memory
     * @param offset    from the start of {@code remote}
     * @param immediate the immediate data (host order)
     * @return this poster
     */
    @Reaches("ibv_wr_rdma_write_imm")
    public ExtendedSendQueue rdmaWriteWithImmediate(RemoteMemory remote, long offset, int immediate) {
        operations.rdmaWriteWithImmediate(remote, offset, immediate);
        return this;
    }

    /**
     * Builds an RDMA READ of {@code remote} at {@code offset} ({@code ibv_wr_rdma_read}) into the SGE set next.
     *
     * @param remote the peer's memory
     * @param offset from the start of {@code remote}
     * @return this poster
     */
    @Reaches("ibv_wr_rdma_read")
    public ExtendedSendQueue rdmaRead(RemoteMemory remote, long offset) {
        operations.rdmaRead(remote, offset);
        return this;
    }

    /**
     * Builds an atomic compare-and-swap ({@code ibv_wr_atomic_cmp_swp}); the old value lands in the
     * 8-byte SGE set next.
     *
     * @param remote  the peer's memory
     * @param offset  of the 8 aligned bytes in {@code remote}
     * @param compare the value expected there
     * @param swap    the value stored if it matches
     * @return this poster
     */
    @Reaches("ibv_wr_atomic_cmp_swp")
    public ExtendedSendQueue compareAndSwap(RemoteMemory remote, long offset, long compare, long swap) {
        operations.compareAndSwap(remote, offset, compare, swap);
        return this;
    }

    /**
     * Builds an atomic fetch-and-add ({@code ibv_wr_atomic_fetch_add}); the old value lands in the
     * 8-byte SGE set next.
     *
     * @param remote the peer's memory
     * @param offset of the 8 aligned bytes in {@code remote}
     * @param add    the value added
     * @return this poster
     */
    @Reaches("ibv_wr_atomic_fetch_add")
    public ExtendedSendQueue fetchAndAdd(RemoteMemory remote, long offset, long add) {
        operations.fetchAndAdd(remote, offset, add);
        return this;
    }

    /**
     * Builds an atomic write of 8 bytes ({@code ibv_wr_atomic_write}), copied during the call. Needs a
     * device with atomic write (rxe from Linux 6.3; on 6.1 librxe 44 builds it, and the kernel fails it:
     * see the device tests).
     *
     * @param remote the peer's memory
     * @param offset of the 8 aligned bytes in {@code remote}
     * @param value  the 8 bytes written (host order)
     * @return this poster
     */
    @Reaches("ibv_wr_atomic_write")
    public ExtendedSendQueue atomicWrite(RemoteMemory remote, long offset, long value) {
        operations.atomicWrite(remote, offset, value);
        return this;
    }

    /**
     * Builds a bind of type 2 memory window {@code mw} ({@code ibv_wr_bind_mw}) to a range of {@code mr};
     * the provider copies the bind description during the call.
     *
     * @param mw     a type 2 memory window of the queue pair's protection domain
     * @param rkey   the window's new rkey (its key tag changed, e.g. {@code ibv_inc_rkey})
     * @param mr     the region to expose a part of, registered with {@link Access#MW_BIND}
     * @param offset from the start of the region
     * @param length the number of bytes
     * @param access the rights peers get through the window
     * @return this poster
     */
    @Reaches("ibv_wr_bind_mw")
    public ExtendedSendQueue bindMemoryWindow(MemoryWindow mw, int rkey, MemoryRegion mr, long offset, long length,
            Set<Access> access) {
        operations.bindMemoryWindow(mw, rkey, mr, offset, length, access);
        return this;
    }

    /**
     * Builds a local invalidate of {@code rkey} ({@code ibv_wr_local_inv}), a type 2 memory window's.
     *
     * @param rkey the local memory window's rkey to invalidate
     * @return this poster
     */
    @Reaches("ibv_wr_local_inv")
    public ExtendedSendQueue localInvalidate(int rkey) {
        operations.localInvalidate(rkey);
        return this;
    }

    /**
     * Sets the one SGE of the last operation ({@code ibv_wr_set_sge}): the data sent or written, or
     * where a READ's data or an atomic's old value land.
     *
     * @param mr     the region holding the data (or receiving it, for READ and atomics)
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this poster
     */
    @Reaches("ibv_wr_set_sge")
    public ExtendedSendQueue sge(MemoryRegion mr, long offset, int length) {
        operations.sge(mr, offset, length);
        return this;
    }

    /**
     * Stages entry {@code index} of the SGE list {@link #sgeList} sets; stays staged across batches.
     *
     * @param index  the entry, below the queue pair's max send SGEs
     * @param mr     the region
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this poster
     */
    public ExtendedSendQueue sgeEntry(int index, MemoryRegion mr, long offset, int length) {
        operations.sgeEntry(index, mr, offset, length);
        return this;
    }

    /**
     * Sets the first {@code count} entries staged with {@link #sgeEntry} as the last operation's SGE list
     * ({@code ibv_wr_set_sge_list}). librxe before rdma-core 64 sums the list's length as
     * {@code count} times the first entry's (fixed by commit 406cd2a): entries of unequal length
     * fail there with a local error.
     *
     * @param count the number of staged entries, from 0
     * @return this poster
     */
    @Reaches("ibv_wr_set_sge_list")
    public ExtendedSendQueue sgeList(int count) {
        operations.sgeList(count);
        return this;
    }

    /**
     * Copies {@code data} into the last operation, which was built with {@code inline(true)}
     * ({@code ibv_wr_set_inline_data}); at most the queue pair's max inline size.
     *
     * @param data native memory, copied during the call
     * @return this poster
     */
    @Reaches("ibv_wr_set_inline_data")
    public ExtendedSendQueue inlineData(MemorySegment data) {
        operations.inlineData(data);
        return this;
    }

    /**
     * Stages entry {@code index} of the buffer list {@link #inlineDataList} copies.
     *
     * @param index  the entry, below 16
     * @param mr     the region holding the bytes
     * @param offset from the start of the region
     * @param length the number of bytes
     * @return this poster
     */
    public ExtendedSendQueue inlineEntry(int index, MemoryRegion mr, long offset, int length) {
        operations.inlineEntry(index, mr, offset, length);
        return this;
    }

    /**
     * Copies the first {@code count} buffers staged with {@link #inlineEntry}, one after the other, into
     * the last operation, which was built with {@code inline(true)} ({@code ibv_wr_set_inline_data_list}).
     * librxe before rdma-core 64 leaves the request's length at 0 (fixed by commit 1e8ed0a): there
     * the operation carries no data.
     *
     * @param count the number of staged entries
     * @return this poster
     */
    @Reaches("ibv_wr_set_inline_data_list")
    public ExtendedSendQueue inlineDataList(int count) {
        operations.inlineDataList(count);
        return this;
    }

    /**
     * Sets the destination of the last operation of a UD queue pair ({@code ibv_wr_set_ud_addr});
     * required for each.
     *
     * @param ah         the address handle of the destination
     * @param remoteQpn  the destination queue pair number
     * @param remoteQkey the destination Q_Key
     * @return this poster
     */
    @Reaches("ibv_wr_set_ud_addr")
    public ExtendedSendQueue udAddress(AddressHandle ah, int remoteQpn, int remoteQkey) {
        operations.udAddress(ah, remoteQpn, remoteQkey);
        return this;
    }

    /**
     * Sets the remote SRQ of the last operation of an XRC send queue pair ({@code ibv_wr_set_xrc_srqn});
     * providers without XRC (rxe) throw {@link OperationNotSupportedException}.
     *
     * @param srqNumber the remote XRC SRQ number
     * @return this poster
     */
    @Reaches("ibv_wr_set_xrc_srqn")
    public ExtendedSendQueue xrcSrqNumber(int srqNumber) {
        operations.xrcSrqNumber(srqNumber);
        return this;
    }
}
