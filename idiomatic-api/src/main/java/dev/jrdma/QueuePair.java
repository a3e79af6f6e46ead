// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.NativeCreator;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;

/**
 * A queue pair ({@code struct ibv_qp}): a send queue and a receive queue, of type RC, UC or UD,
 * built with {@link ProtectionDomain#queuePair(QueuePairType)}. It starts in RESET;
 * {@link #connect(Endpoint)} (or {@link #toInit()}, {@link #toRtr}, {@link #toRts}) brings it to
 * RTS. What the peer needs to know, {@link #localEndpoint()}, is fixed when the queue pair is
 * built (the port and GID entry of {@link Builder#sourceGid}, else {@link Context#defaultGid()},
 * and a random initial PSN): read it in any order, as often as needed. It belongs to its protection domain and to its completion queues: closing any of them
 * closes the queue pair first.
 *
 * <p>Thread safety: posting sends from one thread and receives from another is safe, as in C;
 * posting to the same queue from several threads needs external synchronisation, as does
 * changing state while posting. Closing the queue pair (or its PD, CQs or context) from another
 * thread while a post runs is safe: the post completes or throws {@link IllegalStateException}.
 * The failure path of a post allocates; the success path, and {@code tryPost} on a full queue,
 * do not.
 *
 * <p>{@link #toString()}: {@code queue pair 0x<qpn> (<type>) on <device>}.
 */
public final class QueuePair extends NativeObject {
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;
    final SharedReceiveQueue srq;
    /** What created this QP and destroys it (an rdma_cm id), or null; rdma_cm then owns the QP's transitions. */
    private final NativeCreator creator;
    private final QueuePairType type;
    private final int qpn;
    private final QueuePairCapabilities capabilities;
    /** The handle as an address, for the post downcalls; libibverbs owns the ibv_qp until destroy. */
    final long address;
    /** The one-off posts, and the provider's post functions that prepared requests take once. */
    final QueuePairPosts posts;
    /** The state transitions and the local endpoint they use. */
    final QpConnector connector;
    /**
     * The state as of the last transition this object made. The device may move an RTS queue
     * pair to ERR (or SQE) on its own, never out of RESET, INIT or RTR, so a post can be
     * refused in those three states without a query.
     */
    volatile QueuePairState lastState = QueuePairState.RESET;
    /**
     * What {@link #lastState} (and an SRQ) refuse, as one word a post tests instead of comparing
     * the state enum several times: {@link #NO_SEND} in RESET, INIT, RTR and ERR, {@link #NO_RECEIVE}
     * in RESET and ERR or with an SRQ. Written after {@code lastState} in the same transition.
     */
    volatile int refused = NO_SEND | NO_RECEIVE;
    static final int NO_SEND = 1;
    static final int NO_RECEIVE = 2;
    /** The operations of the extended post API this QP was created for ({@link ExtendedSendQueue}); null if none. */
    final Set<SendOp> extendedOps;

    QueuePair(Builder b, NativeCreator creator, MemorySegment handle, QueuePairCapabilities capabilities) {
        super(handle, "queue pair 0x" + Integer.toHexString(ibv_qp.qp_num(handle)) + " (" + b.type + ") on " + b.pd.context().name(),
                b.pd, b.sendCq, b.receiveCq, b.srq, creator == null ? null : creator.owner());
        this.pd = b.pd;
        this.srq = b.srq;
        this.creator = creator;
        this.sendCq = b.sendCq;
        this.receiveCq = b.receiveCq;
        this.type = b.type;
        this.qpn = ibv_qp.qp_num(handle);
        this.capabilities = capabilities;
        this.extendedOps = b.sendOps;
        this.address = handle.address();
        this.posts = new QueuePairPosts(this, handle);
        this.connector = new QpConnector(this, b.source);
    }

    // Stub-provider seam, for tests and benchmarks in this package only: wraps a fake native object
    // that a test library built (no device, no libibverbs call). The queue pair starts in RTS, as the stub's does. Never close the result: release()
    // would hand the fake to libibverbs.
    static QueuePair overStubProvider(Builder b, MemorySegment handle, QueuePairCapabilities capabilities) {
        QueuePair qp = new QueuePair(b, null, handle, capabilities);
        qp.connector.setState(QueuePairState.RTS);
        return qp;
    }

    /** Builds a queue pair; from {@link ProtectionDomain#queuePair(QueuePairType)}. */
    public static final class Builder {
        final ProtectionDomain pd;
        final QueuePairType type;
        CompletionQueue sendCq;
        CompletionQueue receiveCq;
        SharedReceiveQueue srq;
        int maxSendWr = 16;
        int maxReceiveWr = 16;
        int maxSendSge = 1;
        int maxReceiveSge = 1;
        int maxInlineData;
        boolean signalAll;
        Set<SendOp> sendOps;
        GidEntry source;

        Builder(ProtectionDomain pd, QueuePairType type) {
            this.pd = pd;
            this.type = type;
        }

        ProtectionDomain protectionDomain() {
            return pd;
        }

        /**
         * Sets the CQ for both send and receive completions.
         *
         * @param cq a completion queue of the same context
         * @return this builder
         */
        public Builder completionQueue(CompletionQueue cq) {
            this.sendCq = cq;
            this.receiveCq = cq;
            return this;
        }

        /**
         * Sets the CQ for send completions.
         *
         * @param cq a completion queue of the same context
         * @return this builder
         */
        public Builder sendCompletionQueue(CompletionQueue cq) {
            this.sendCq = cq;
            return this;
        }

        /**
         * Sets the CQ for receive completions.
         *
         * @param cq a completion queue of the same context
         * @return this builder
         */
        public Builder receiveCompletionQueue(CompletionQueue cq) {
            this.receiveCq = cq;
            return this;
        }

        /**
         * Takes receives from {@code srq} instead of an own receive queue (RC and UD); closing
         * the SRQ closes the queue pair first.
         *
         * @param srq a shared receive queue of the same protection domain
         * @return this builder
         */
        public Builder sharedReceiveQueue(SharedReceiveQueue srq) {
            this.srq = srq;
            return this;
        }

        /**
         * Chooses the port and the GID table entry this queue pair sends from (the source of
         * its route, and what {@link QueuePair#localEndpoint()} tells the peer), e.g. an entry
         * of {@link Context#gidTable}; on RoCE a RoCE v2 entry the peer can reach. Default:
         * {@link Context#defaultGid()}, looked up when first needed. Not for queue pairs of
         * rdma_cm, which routes them itself.
         *
         * @param gid the GID table entry to send from
         * @return this builder
         */
        public Builder sourceGid(GidEntry gid) {
            this.source = java.util.Objects.requireNonNull(gid, "gid");
            return this;
        }

        /**
         * {@link #sourceGid(GidEntry)} for entry {@code gidIndex} of {@code port}, which must be in use.
         *
         * @param port     the port number, counting from 1
         * @param gidIndex the GID table index
         * @return this builder
         * @throws IllegalArgumentException when the entry is past the port's GID table or not in use, naming it
         */
        @Reaches({"ibv_query_gid_ex", "ibv_query_port"})
        public Builder sourceGid(int port, int gidIndex) {
            this.source = QpConnector.lookUp(pd.context(), port, gidIndex);
            return this;
        }

        /**
         * Sets the outstanding send and receive work requests (default 16 each).
         *
         * @param send    the send queue depth
         * @param receive the receive queue depth
         * @return this builder
         */
        public Builder maxWorkRequests(int send, int receive) {
            this.maxSendWr = QpCreation.positive("send work requests", send);
            this.maxReceiveWr = QpCreation.positive("receive work requests", receive);
            return this;
        }

        /**
         * Sets the scatter/gather entries per send and receive work request (default 1 each).
         *
         * @param send    SGEs per send request
         * @param receive SGEs per receive request
         * @return this builder
         */
        public Builder maxSges(int send, int receive) {
            this.maxSendSge = QpCreation.positive("send SGEs", send);
            this.maxReceiveSge = QpCreation.positive("receive SGEs", receive);
            return this;
        }

        /**
         * Sets the bytes a send work request may carry inline (default 0).
         *
         * @param bytes the inline size to request; the provider may grant more
         * @return this builder
         */
        public Builder maxInlineData(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("inline size must not be negative: " + bytes);
            }
            this.maxInlineData = bytes;
            return this;
        }

        /**
         * Sets whether every send work request produces a completion, whatever its signalled flag (default false).
         *
         * @param signalAll true to signal all sends
         * @return this builder
         */
        public Builder signalAll(boolean signalAll) {
            this.signalAll = signalAll;
            return this;
        }

        /**
         * Creates the queue pair with {@code ibv_create_qp_ex} for the extended post API
         * ({@link ExtendedSendQueue#of}), able to build exactly {@code ops}; see {@link SendOp}.
         *
         * @param ops the operations the queue pair will build
         * @return this builder
         */
        @Reaches("ibv_create_qp_ex")
        public Builder extendedPost(SendOp... ops) {
            this.sendOps = ops.length == 0 ? java.util.EnumSet.noneOf(SendOp.class) : java.util.EnumSet.copyOf(List.of(ops));
            return this;
        }

        /**
         * Creates the queue pair (in RESET).
         *
         * @return the queue pair, owned by the protection domain and its completion queues
         */
        @Reaches("ibv_create_qp")
        public QueuePair build() {
            return QpCreation.create(this, null);
        }
    }

    /** {@return the queue pair number (QPN), unique on the device} */
    public int qpNumber() {
        return qpn;
    }

    /** {@return the transport type} */
    public QueuePairType type() {
        return type;
    }

    /** {@return the protection domain} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the CQ that receives send completions} */
    public CompletionQueue sendCompletionQueue() {
        return sendCq;
    }

    /** {@return the CQ that receives receive completions} */
    public CompletionQueue receiveCompletionQueue() {
        return receiveCq;
    }

    /** {@return the shared receive queue this queue pair takes receives from, if any} */
    public java.util.Optional<SharedReceiveQueue> sharedReceiveQueue() {
        return java.util.Optional.ofNullable(srq);
    }

    /** {@return the queue sizes the provider granted} */
    public QueuePairCapabilities capabilities() {
        return capabilities;
    }

    /** {@return the current state, as the device reports it ({@code ibv_query_qp})} */
    @Reaches("ibv_query_qp")
    public QueuePairState state() {
        return connector.state();
    }

    /** {@return every attribute the transitions so far gave it, as the device reports them back ({@code ibv_query_qp})} */
    @Reaches("ibv_query_qp")
    public QueuePairAttributes query() {
        return QueuePairAttributes.query(this);
    }

    /**
     * {@return this queue pair's endpoint, to send to the peer: QPN, initial PSN, and the LID,
     * GID and MTU of the port it sends from} A getter: the same value every call, in any state;
     * nothing has to be called before it.
     */
    @Reaches("ibv_query_port")
    public Endpoint localEndpoint() {
        return connector.localEndpoint();
    }

    /**
     * {@return the GID table entry (with its port) this queue pair sends from}: the one given to
     * {@link Builder#sourceGid}, else {@link Context#defaultGid()}.
     */
    public GidEntry sourceGid() {
        return connector.source();
    }

    /**
     * RESET -> INIT -> RTR -> RTS with {@link ConnectionOptions#DEFAULTS} (from INIT: INIT ->
     * RTR -> RTS, so receives may be posted first).
     *
     * @param remote the peer's endpoint
     */
    @Reaches("ibv_modify_qp")
    public void connect(Endpoint remote) {
        connect(remote, ConnectionOptions.DEFAULTS);
    }

    /**
     * RESET (or INIT) -> RTR -> RTS towards {@code remote}, from the port and GID entry of
     * {@link #sourceGid()}.
     *
     * @param remote  the peer's endpoint
     * @param options access rights, timeouts, retries, SL, ...
     */
    @Reaches("ibv_modify_qp")
    public void connect(Endpoint remote, ConnectionOptions options) {
        connector.connect(remote, options);
    }

    /** RESET -> INIT with {@link ConnectionOptions#DEFAULTS}, on the port of {@link #sourceGid()}. */
    @Reaches("ibv_modify_qp")
    public void toInit() {
        connector.toInit(ConnectionOptions.DEFAULTS);
    }

    /**
     * RESET -> INIT on the port of {@link #sourceGid()}: P_Key index 0, and remote access rights
     * (RC/UC) or Q_Key (UD).
     *
     * @param options the remote access rights or the Q_Key
     */
    @Reaches("ibv_modify_qp")
    public void toInit(ConnectionOptions options) {
        connector.toInit(options);
    }

    /** INIT -> RTR of a UD queue pair (it has no remote). */
    @Reaches("ibv_modify_qp")
    public void toRtr() {
        if (type != QueuePairType.UD) {
            throw new IllegalStateException(this + ": a connected queue pair needs the remote endpoint for RTR");
        }
        toRtr(null, ConnectionOptions.DEFAULTS);
    }

    /**
     * INIT -> RTR towards {@code remote} with {@link ConnectionOptions#DEFAULTS}.
     *
     * @param remote the peer's endpoint
     */
    @Reaches("ibv_modify_qp")
    public void toRtr(Endpoint remote) {
        toRtr(remote, ConnectionOptions.DEFAULTS);
    }

    /**
     * INIT -> RTR towards {@code remote} (RC/UC): route (with the options' service level, and
     * for a global route their hop limit and traffic class), path MTU (the smaller of both
     * ports'), remote QPN and PSN, from the port and GID entry of {@link #sourceGid()}.
     *
     * @param remote  the peer's endpoint
     * @param options SL, traffic class, hop limit, RNR timer, responder READ depth
     */
    @Reaches("ibv_modify_qp")
    public void toRtr(Endpoint remote, ConnectionOptions options) {
        connector.toRtr(remote, options);
    }

    /** RTR -> RTS with {@link ConnectionOptions#DEFAULTS}. */
    @Reaches("ibv_modify_qp")
    public void toRts() {
        toRts(ConnectionOptions.DEFAULTS);
    }

    /**
     * RTR -> RTS: the send PSN of {@link #localEndpoint()}, and for RC the retry settings.
     *
     * @param options ACK timeout, retry counts, outstanding READs
     */
    @Reaches("ibv_modify_qp")
    public void toRts(ConnectionOptions options) {
        connector.toRts(options);
    }

    /** Any state -> ERR: outstanding work requests complete with {@link WorkCompletionStatus#WR_FLUSH_ERR}. */
    @Reaches("ibv_modify_qp")
    public void toError() {
        connector.modifyState(QueuePairState.ERR);
    }

    /** Any state -> RESET: the queues are emptied without completions; connect again to reuse the QP. */
    @Reaches("ibv_modify_qp")
    public void reset() {
        connector.modifyState(QueuePairState.RESET);
    }

    /**
     * Posts a send work request, or a chain of them ({@link SendRequest#next}) with one call.
     * Throws {@link IllegalStateException} if the queue pair is in RESET, INIT or RTR, or in ERR
     * after {@link #toError()}, and
     * {@link RdmaException} naming the first request the provider refused; requests before it
     * in the chain were posted.
     *
     * @param request the first request of the chain
     */
    @Reaches("ibv_post_send")
    public void post(SendRequest request) {
        posts.post(request);
    }

    /**
     * As {@link #post(SendRequest)}, but a full send queue is an answer rather than an exception:
     * returns false, allocating nothing and without querying the queue pair, when the provider
     * had no room for the first request (ENOMEM), so nothing was posted. Poll the send CQ and try
     * again. Any other failure throws as {@code post} does, as does a chain of which only the
     * first requests fitted (they were posted).
     *
     * @param request the first request of the chain
     * @return true when the whole chain was posted, false when none of it was for lack of room
     */
    @Reaches("ibv_post_send")
    public boolean tryPost(SendRequest request) {
        return posts.tryPost(request);
    }

    /**
     * Posts a receive work request, or a chain of them, with one call. Throws
     * {@link IllegalStateException} in RESET, and in ERR after {@link #toError()}; otherwise
     * failures as for sends.
     *
     * @param request the first request of the chain
     */
    @Reaches("ibv_post_recv")
    public void post(ReceiveRequest request) {
        posts.post(request);
    }

    /**
     * As {@link #post(ReceiveRequest)}, but a full receive queue is an answer: returns false,
     * allocating nothing, when the provider had no room for the first request (ENOMEM), so
     * nothing was posted; other failures throw as {@code post} does.
     *
     * @param request the first request of the chain
     * @return true when the whole chain was posted, false when none of it was for lack of room
     */
    @Reaches("ibv_post_recv")
    public boolean tryPost(ReceiveRequest request) {
        return posts.tryPost(request);
    }

    /**
     * Binds type 1 memory window {@code mw} to {@code [offset, offset + length)} of {@code mr}
     * (registered with {@link Access#MW_BIND}) with {@code access} rights for peers, giving the
     * window a new rkey. The bind is a work request on this queue pair's send queue (RTS needed);
     * its completion, with {@code wrId}, arrives on the send CQ.
     *
     * @param mw     the window to bind
     * @param mr     the region to expose a part of
     * @param offset from the start of the region
     * @param length the number of bytes
     * @param access the rights peers get through the window
     * @param wrId   the identifier of the bind's completion
     */
    @Reaches("ibv_bind_mw")
    public void bind(MemoryWindow mw, MemoryRegion mr, long offset, long length, Set<Access> access, long wrId) {
        try (var _ = hold(this, mw, mr)) {
            connector.requireRts("bind memory window");
            mw.bind(this, mr, offset, length, access, wrId, handle);
        }
    }

    /**
     * Unbinds {@code mw} (a zero-length bind), revoking its rkey; the completion arrives on the
     * send CQ. The window must have been bound.
     *
     * @param mw   the window to unbind
     * @param wrId the identifier of the completion
     */
    @Reaches("ibv_bind_mw")
    public void unbind(MemoryWindow mw, long wrId) {
        try (var _ = hold(this, mw)) {
            connector.requireRts("unbind memory window");
            mw.unbind(this, wrId, handle);
        }
    }

    /**
     * Attaches this UD queue pair to multicast group {@code group} ({@code ibv_attach_mcast}):
     * from now on the group's datagrams arrive here too, until the membership is closed.
     *
     * @param group the group
     * @return the membership; close it (or {@link MulticastMembership#detach()}) to leave the group
     */
    @Reaches("ibv_attach_mcast")
    public MulticastMembership attachMulticast(MulticastGroup group) {
        checkOpen();
        return MulticastMembership.attach(this, group);
    }

    /**
     * {@return whether the device writes the data of one {@code opcode} work request in order
     * ({@code ibv_query_qp_data_in_order}), so that a reader may poll the last byte of the
     * buffer instead of the completion} For RDMA READ: reads posted here; for RDMA WRITE and
     * SEND: those a peer does into this queue pair. False where the provider does not say (rxe).
     *
     * @param opcode RDMA_READ, RDMA_WRITE or SEND
     */
    @Reaches("ibv_query_qp_data_in_order")
    public boolean isDataInOrder(SendOpcode opcode) {
        try (var _ = hold(this)) {
            return rdma_h.ibv_query_qp_data_in_order(handle, opcode.value(), 0) == 1;
        }
    }

    /** Whether the send queue takes work requests (not in RESET, INIT, RTR, or ERR after {@link #toError()}). */
    boolean sendAllowed() {
        return (refused & NO_SEND) == 0;
    }

    /** The state as of this object's last transition. */
    QueuePairState lastState() {
        return lastState;
    }

    /** Re-reads the state after rdma_cm moved the QP behind this object's back. */
    void refreshState() {
        connector.setState(state());
    }

    @Override
    @Reaches({"ibv_destroy_qp", "rdma_destroy_qp"})
    protected void release() {
        if (creator != null) {
            // rdma_destroy_qp also clears id->qp, which rdma_disconnect would otherwise still use.
            creator.destroy();
            return;
        }
        RdmaException.check(Verb.IBV_DESTROY_QP, this, rdma_h.ibv_destroy_qp(handle));
    }
}
