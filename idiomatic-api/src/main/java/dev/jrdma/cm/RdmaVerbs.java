// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionChannel;
import dev.jrdma.CompletionQueue;
import dev.jrdma.MemoryRegion;
import dev.jrdma.NativeResource;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairCapabilities;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.Reaches;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.WorkCompletion;
import dev.jrdma.bindings.generated.ibv_cq;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.CoreAccess;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * The helpers of {@code rdma/rdma_verbs.h} over an rdma_cm id's queue pair, from
 * {@link CmId#verbs()}: register memory for messages, RDMA READ or WRITE; post a receive, a
 * send, a READ, a WRITE or a datagram with one buffer or a list; wait for a send or receive
 * completion. In C they are static inline functions over {@code id->qp}, {@code id->pd},
 * {@code id->send_cq} and {@code id->srq}; here they go through the typed API, to the same
 * verbs. The id's queue pair (and SRQ, when the id has one) must exist first.
 *
 * <p>Each post reuses one work request of this object, so posting allocates nothing; not
 * thread-safe (as the C helpers on one id are not).
 */
public final class RdmaVerbs {
    private static final CoreAccess CORE = CoreAccess.get();

    /** Flags of a posted work request ({@code IBV_SEND_*}), as the C helpers' {@code flags}. */
    public enum SendFlag {
        /** Generate a completion for this work request. */
        SIGNALED,
        /** Copy the data into the work request (up to the queue pair's inline size). */
        INLINE,
        /** Wait for earlier RDMA READs and atomics first. */
        FENCE,
        /** Raise a solicited event at the receiver. */
        SOLICITED
    }

    /** {@code IBV_SEND_SIGNALED}: the common case, one completion per post. */
    public static final Set<SendFlag> SIGNALED = java.util.Collections.unmodifiableSet(EnumSet.of(SendFlag.SIGNALED));

    /**
     * One entry of a scatter/gather list ({@code struct ibv_sge}) for the {@code *v} helpers.
     *
     * @param region the registered memory
     * @param offset where the entry starts in it
     * @param length its length in bytes
     */
    public record Sge(MemoryRegion region, long offset, int length) {}

    private final CmId id;
    private SendRequest send;
    private ReceiveRequest receive;
    private CompletionChannel sendChannel;
    private CompletionChannel receiveChannel;
    /** The shared receive queue of the id's queue pair, where {@code rdma_post_recv} goes; or null. */
    private SharedReceiveQueue srq;
    /** The queue pair the requests above are sized for. */
    private QueuePair requestsFor;

    RdmaVerbs(CmId id) {
        this.id = id;
    }

    /** The id's queue pair; looked up (which allocates) only when the last one is gone. */
    private QueuePair qp() {
        QueuePair cached = requestsFor;
        if (cached != null && !cached.isClosed()) {
            return cached;
        }
        QueuePair qp = id.queuePair();
        if (qp == null) {
            throw new IllegalStateException(id + " has no queue pair: create it first (CmId.createQueuePair)");
        }
        if (qp != requestsFor) {
            srq = qp.sharedReceiveQueue().orElse(null);
            QueuePairCapabilities caps = qp.capabilities();
            send = new SendRequest(Math.max(1, caps.maxSendSges()));
            receive = new ReceiveRequest(Math.max(1, caps.maxReceiveSges()));
            sendChannel = channelOf(qp.sendCompletionQueue());
            receiveChannel = channelOf(qp.receiveCompletionQueue());
            requestsFor = qp;
        }
        return qp;
    }

    private static CompletionChannel channelOf(CompletionQueue cq) {
        long address = ibv_cq.channel(CORE.handle(cq)).address();
        if (address == 0) {
            return null;
        }
        for (NativeResource r : CORE.dependents(cq.context())) {
            if (r instanceof CompletionChannel c && CORE.nativeAddress(c) == address) {
                return c;
            }
        }
        return null;
    }

    /**
     * Registers {@code memory} for sends and receives ({@code rdma_reg_msgs}: local write) on
     * the protection domain of the id's queue pair.
     *
     * @param memory native memory that outlives the region
     * @return the region
     */
    @Reaches("rdma_reg_msgs")
    public MemoryRegion registerMessages(MemorySegment memory) {
        return qp().protectionDomain().register(memory, EnumSet.of(Access.LOCAL_WRITE));
    }

    /**
     * Registers {@code memory} as the target of the peer's RDMA READs ({@code rdma_reg_read}:
     * local write, remote read).
     *
     * @param memory native memory that outlives the region
     * @return the region; send {@link MemoryRegion#remote()} to the peer
     */
    @Reaches("rdma_reg_read")
    public MemoryRegion registerForRead(MemorySegment memory) {
        return qp().protectionDomain().register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
    }

    /**
     * Registers {@code memory} as the target of the peer's RDMA WRITEs ({@code rdma_reg_write}:
     * local write, remote write).
     *
     * @param memory native memory that outlives the region
     * @return the region; send {@link MemoryRegion#remote()} to the peer
     */
    @Reaches("rdma_reg_write")
    public MemoryRegion registerForWrite(MemorySegment memory) {
        return qp().protectionDomain().register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
    }

    /**
     * Deregisters a region ({@code rdma_dereg_mr}, that is {@code ibv_dereg_mr}): {@link MemoryRegion#close()}.
     *
     * @param region the region
     */
    @Reaches("rdma_dereg_mr")
    public void deregister(MemoryRegion region) {
        region.close();
    }

    /**
     * Posts a receive of one buffer ({@code rdma_post_recv}): to the id's shared receive queue
     * when it has one, else to its queue pair.
     *
     * @param wrId   the work request id its completion carries
     * @param region the registered memory
     * @param offset where the buffer starts in it
     * @param length the buffer's length
     */
    @Reaches("rdma_post_recv")
    public void postReceive(long wrId, MemoryRegion region, long offset, int length) {
        post(receiveRequest(wrId).sge(region, offset, length));
    }

    /**
     * Posts a receive scattered over {@code sgl} ({@code rdma_post_recvv}); see {@link #postReceive(long, MemoryRegion, long, int)}.
     *
     * @param wrId the work request id
     * @param sgl  the buffers, at most the queue pair's receive SGEs
     */
    @Reaches("rdma_post_recvv")
    public void postReceive(long wrId, Sge... sgl) {
        ReceiveRequest request = receiveRequest(wrId);
        for (int i = 0; i < sgl.length; i++) {
            request.sge(i, sgl[i].region(), sgl[i].offset(), sgl[i].length());
        }
        post(request.sgeCount(sgl.length));
    }

    /**
     * Posts a SEND of one buffer ({@code rdma_post_send}).
     *
     * @param wrId   the work request id
     * @param region the registered memory (may be null with {@link SendFlag#INLINE})
     * @param offset where the message starts in it
     * @param length its length
     * @param flags  e.g. {@link #SIGNALED}
     */
    @Reaches("rdma_post_send")
    public void postSend(long wrId, MemoryRegion region, long offset, int length, Set<SendFlag> flags) {
        post(sendRequest(wrId, SendOpcode.SEND, flags).sge(region, offset, length));
    }

    /**
     * Posts a SEND gathered from {@code sgl} ({@code rdma_post_sendv}).
     *
     * @param wrId  the work request id
     * @param sgl   the buffers, at most the queue pair's send SGEs
     * @param flags e.g. {@link #SIGNALED}
     */
    @Reaches("rdma_post_sendv")
    public void postSend(long wrId, Sge[] sgl, Set<SendFlag> flags) {
        post(gather(sendRequest(wrId, SendOpcode.SEND, flags), sgl));
    }

    /**
     * Posts an RDMA READ of {@code remote} into one buffer ({@code rdma_post_read}).
     *
     * @param wrId   the work request id
     * @param region the registered local memory
     * @param offset where the data lands in it
     * @param length how many bytes to read
     * @param flags  e.g. {@link #SIGNALED}
     * @param remote the peer's memory (address and rkey)
     */
    @Reaches("rdma_post_read")
    public void postRead(long wrId, MemoryRegion region, long offset, int length, Set<SendFlag> flags,
                         RemoteMemory remote) {
        post(sendRequest(wrId, SendOpcode.RDMA_READ, flags).sge(region, offset, length).remote(remote));
    }

    /**
     * Posts an RDMA READ of {@code remote} scattered into {@code sgl} ({@code rdma_post_readv}).
     *
     * @param wrId   the work request id
     * @param sgl    the local buffers
     * @param flags  e.g. {@link #SIGNALED}
     * @param remote the peer's memory
     */
    @Reaches("rdma_post_readv")
    public void postRead(long wrId, Sge[] sgl, Set<SendFlag> flags, RemoteMemory remote) {
        post(gather(sendRequest(wrId, SendOpcode.RDMA_READ, flags), sgl).remote(remote));
    }

    /**
     * Posts an RDMA WRITE of one buffer to {@code remote} ({@code rdma_post_write}).
     *
     * @param wrId   the work request id
     * @param region the registered local memory (may be null with {@link SendFlag#INLINE})
     * @param offset where the data starts in it
     * @param length how many bytes to write
     * @param flags  e.g. {@link #SIGNALED}
     * @param remote the peer's memory
     */
    @Reaches("rdma_post_write")
    public void postWrite(long wrId, MemoryRegion region, long offset, int length, Set<SendFlag> flags,
                          RemoteMemory remote) {
        post(sendRequest(wrId, SendOpcode.RDMA_WRITE, flags).sge(region, offset, length).remote(remote));
    }

    /**
     * Posts an RDMA WRITE gathered from {@code sgl} to {@code remote} ({@code rdma_post_writev}).
     *
     * @param wrId   the work request id
     * @param sgl    the local buffers
     * @param flags  e.g. {@link #SIGNALED}
     * @param remote the peer's memory
     */
    @Reaches("rdma_post_writev")
    public void postWrite(long wrId, Sge[] sgl, Set<SendFlag> flags, RemoteMemory remote) {
        post(gather(sendRequest(wrId, SendOpcode.RDMA_WRITE, flags), sgl).remote(remote));
    }

    /**
     * Posts a datagram of one buffer on a UD id ({@code rdma_post_ud_send}), with rdma_cm's
     * Q_Key ({@code RDMA_UDP_QKEY}).
     *
     * @param wrId      the work request id
     * @param region    the registered memory
     * @param offset    where the datagram starts in it
     * @param length    its length
     * @param flags     e.g. {@link #SIGNALED}
     * @param ah        the address handle of the destination ({@link DatagramPeer#createAddressHandle})
     * @param remoteQpn the destination queue pair number
     */
    @Reaches("rdma_post_ud_send")
    public void postDatagram(long wrId, MemoryRegion region, long offset, int length, Set<SendFlag> flags,
                             AddressHandle ah, int remoteQpn) {
        post(sendRequest(wrId, SendOpcode.SEND, flags).sge(region, offset, length)
                .datagram(ah, remoteQpn, rdma_h.RDMA_UDP_QKEY()));
    }

    // The id's two requests are made for its current queue pair: each post asks qp() first (a
    // new queue pair gets new requests) and posts on the queue pair qp() answered.

    private ReceiveRequest receiveRequest(long wrId) {
        qp();
        return receive.wrId(wrId);
    }

    /** Posts to the id's shared receive queue when it has one, else to its queue pair. */
    private void post(ReceiveRequest request) {
        if (srq != null) {
            srq.post(request);
        } else {
            requestsFor.post(request);
        }
    }

    private SendRequest sendRequest(long wrId, SendOpcode opcode, Set<SendFlag> flags) {
        qp();
        return send.wrId(wrId).opcode(opcode).signaled(flags.contains(SendFlag.SIGNALED))
                .inline(flags.contains(SendFlag.INLINE)).fence(flags.contains(SendFlag.FENCE))
                .solicited(flags.contains(SendFlag.SOLICITED));
    }

    private static SendRequest gather(SendRequest request, Sge[] sgl) {
        for (int i = 0; i < sgl.length; i++) {
            request.sge(i, sgl[i].region(), sgl[i].offset(), sgl[i].length());
        }
        return request.sgeCount(sgl.length);
    }

    private void post(SendRequest request) {
        requestsFor.post(request);
    }

    /**
     * Waits for the next send completion ({@code rdma_get_send_comp}): polls the send CQ, and
     * when it is empty arms it and sleeps on its completion channel (if it has one; else
     * polls), as the C helper does.
     *
     * @param wc      the view to fill
     * @param timeout how long to wait
     * @return {@code wc}; check its status
     * @throws RdmaTimeoutException when no completion arrives in time
     */
    @Reaches("rdma_get_send_comp")
    public WorkCompletion awaitSendCompletion(WorkCompletion wc, Duration timeout) {
        QueuePair qp = qp();
        return await(qp.sendCompletionQueue(), sendChannel, wc, timeout);
    }

    /**
     * Waits for the next receive completion ({@code rdma_get_recv_comp}); see {@link #awaitSendCompletion}.
     *
     * @param wc      the view to fill
     * @param timeout how long to wait
     * @return {@code wc}; check its status
     * @throws RdmaTimeoutException when no completion arrives in time
     */
    @Reaches("rdma_get_recv_comp")
    public WorkCompletion awaitReceiveCompletion(WorkCompletion wc, Duration timeout) {
        QueuePair qp = qp();
        return await(qp.receiveCompletionQueue(), receiveChannel, wc, timeout);
    }

    private static WorkCompletion await(CompletionQueue cq, CompletionChannel channel, WorkCompletion wc,
                                        Duration timeout) {
        if (cq.poll(wc) == 1) {
            return wc;
        }
        if (channel == null) {
            return cq.take(wc, timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            cq.requestNotification(false);
            if (cq.poll(wc) == 1) {   // a completion that came before the arm raises no event
                return wc;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new RdmaTimeoutException("no completion", cq, timeout);
            }
            try {
                channel.await(Duration.ofNanos(left));
            } catch (RdmaTimeoutException e) {
                throw new RdmaTimeoutException("no completion", cq, timeout);
            }
            if (cq.poll(wc) == 1) {
                return wc;
            }
        }
    }
}
