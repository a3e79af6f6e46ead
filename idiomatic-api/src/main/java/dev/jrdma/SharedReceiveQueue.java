// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.jrdma.bindings.generated.ibv_srq;
import dev.jrdma.bindings.generated.ibv_srq_attr;
import dev.jrdma.bindings.generated.ibv_srq_init_attr;
import dev.jrdma.bindings.generated.ibv_srq_init_attr_ex;
import dev.jrdma.bindings.generated.ibv_tm_cap;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.BoundVerbs;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.internal.NativeCreator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A shared receive queue ({@code struct ibv_srq}): one pool of receive buffers for many queue
 * pairs ({@link QueuePair.Builder#sharedReceiveQueue}). From
 * {@link ProtectionDomain#createSharedReceiveQueue}. Closing it first closes the queue pairs
 * that use it. Posting is not thread-safe: post from one thread at a time.
 *
 * <p>Refilling: {@link #armLimit} asks the device to raise {@link AsyncEventType#SRQ_LIMIT_REACHED}
 * (to {@link Context#onAsyncEvent} listeners) once fewer receives than the limit are left, so a
 * server can refill the queue when it runs low instead of counting completions; the limit
 * disarms itself when it fires. {@link #query()} reads the sizes and the armed limit back.
 *
 * <p>{@link #toString()}: {@code shared receive queue handle <n> on <device>}.
 */
public final class SharedReceiveQueue extends NativeObject {
    private final ProtectionDomain pd;
    /** What created this SRQ and destroys it (an rdma_cm id's {@code rdma_create_srq}), or null. */
    private final NativeCreator creator;
    /** Set at creation and by {@link #resize}; read without the queue's lock, as a hint. */
    private volatile int maxWorkRequests;
    private final int maxSges;
    // The bad_wr slot lives as long as this object (an automatic arena; posts fence this).
    private final MemorySegment badReceive = Arena.ofAuto().allocate(ADDRESS);
    private final long badReceiveAddress = badReceive.address();
    final long address;
    /** The provider's post_srq_recv, read from the ops table once. */
    final MemorySegment postSrqRecvFn;
    /** Whether the provider's function is the one BoundVerbs calls as a constant. */
    final boolean bound;

    private SharedReceiveQueue(ProtectionDomain pd, NativeCreator creator, MemorySegment handle, int maxWorkRequests,
                               int maxSges) {
        super(handle, "shared receive queue handle " + ibv_srq.handle(handle) + " on " + pd.context().name(),
                pd, creator == null ? null : creator.owner());
        this.pd = pd;
        this.creator = creator;
        this.address = handle.address();
        this.postSrqRecvFn = InlineVerbs.postSrqRecvFunction(handle);
        this.bound = BoundVerbs.bindPostSrqRecv(postSrqRecvFn);
        this.maxWorkRequests = maxWorkRequests;
        this.maxSges = maxSges;
    }

    static SharedReceiveQueue create(ProtectionDomain pd, int maxWorkRequests, int maxSges) {
        return create(pd, null, maxWorkRequests, maxSges);
    }

    /** Wraps an SRQ {@code ibv_create_srq_ex} created ({@link SharedReceiveQueue.Builder}), destroying it if that fails. */
    static SharedReceiveQueue wrap(ProtectionDomain pd, MemorySegment created, int maxWorkRequests, int maxSges,
                                   NativeResource... alsoOwners) {
        return wrapCreated(created, ibv_srq.layout(), h -> {
            SharedReceiveQueue srq = new SharedReceiveQueue(pd, null, h, maxWorkRequests, maxSges);
            for (NativeResource owner : alsoOwners) {
                if (owner != null) {
                    srq.dependOn(owner);
                }
            }
            return srq;
        }, rdma_h::ibv_destroy_srq);
    }

    /**
     * {@return the SRQ number, which XRC initiators address their sends to} Only XRC SRQs
     * ({@link SharedReceiveQueue.Builder#xrc}) have one; providers without XRC (rxe) answer
     * EOPNOTSUPP for every SRQ, which this throws as {@link OperationNotSupportedException}.
     */
    @Reaches({"ibv_get_srq_num"})
    public int srqNumber() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment number = arena.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
            enter();
            int rc;
            try {
                rc = ExtensionVerbs.ibv_get_srq_num(handle, number);
            } finally {
                exit();
            }
            RdmaException.check(Verb.IBV_GET_SRQ_NUM, this, rc, pd.context(), "SRQ numbers (XRC)");
            return number.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
        }
    }

    /**
     * Creates an SRQ with {@code ibv_create_srq}, or through {@code creator} when there is one (an
     * rdma_cm id's {@code rdma_create_srq}, then {@code id->srq}).
     */
    static SharedReceiveQueue create(ProtectionDomain pd, NativeCreator creator, int maxWorkRequests, int maxSges) {
        if (maxWorkRequests < 1 || maxSges < 1) {
            throw new IllegalArgumentException("a shared receive queue needs at least 1 work request and 1 SGE, not "
                    + maxWorkRequests + " and " + maxSges);
        }
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd, creator == null ? null : creator.owner())) {
            MemorySegment init = arena.allocate(ibv_srq_init_attr.layout());
            MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, maxWorkRequests);
            ibv_srq_attr.max_sge(attr, maxSges);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment srq = creator == null ? ErrnoVerbs.ibv_create_srq(errno, pd.handle(), init)
                    : creator.create(errno, pd.handle(), init);
            if (srq.address() == 0) {
                throw RdmaException.of(creator == null ? Verb.IBV_CREATE_SRQ : creator.verb(),
                        (creator == null ? "" : creator.owner() + ", ") + pd + ", " + maxWorkRequests
                                + " work requests, " + maxSges + " SGEs", Errno.get(errno));
            }
            // As for QPs, the provider writes back what it granted.
            return wrapCreated(srq, ibv_srq.layout(),
                    h -> new SharedReceiveQueue(pd, creator, h, ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr)),
                    creator == null ? rdma_h::ibv_destroy_srq : h -> creator.destroy());
        }
    }

    /** {@return the protection domain} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the outstanding receive work requests the provider granted (at creation or the last resize)} */
    public int maxWorkRequests() {
        return maxWorkRequests;
    }

    /** {@return the SGEs per receive work request the provider granted} */
    public int maxSges() {
        return maxSges;
    }

    /**
     * Posts a receive work request, or a chain of them, with one call; a failure names the request.
     *
     * @param request the first request of the chain
     */
    @Reaches("ibv_post_srq_recv")
    public void post(ReceiveRequest request) {
        int rc = postReceive(request);
        if (rc != 0) {
            throw RdmaException.of(Verb.IBV_POST_SRQ_RECV, this, rc,
                    request.find(badReceive.get(JAVA_LONG, 0)) + " was not posted");
        }
    }

    /**
     * As {@link #post(ReceiveRequest)}, but a full queue is an answer: returns false, allocating
     * nothing, when the provider had no room for the first request (ENOMEM), so nothing was
     * posted; other failures throw as {@code post} does.
     *
     * @param request the first request of the chain
     * @return true when the whole chain was posted, false when none of it was for lack of room
     */
    @Reaches("ibv_post_srq_recv")
    public boolean tryPost(ReceiveRequest request) {
        int rc = postReceive(request);
        if (rc == 0) {
            return true;
        }
        if (request.refusedForRoom(rc, badReceive)) {
            return false;
        }
        throw RdmaException.of(Verb.IBV_POST_SRQ_RECV, this, rc,
                request.find(badReceive.get(JAVA_LONG, 0)) + " was not posted");
    }

    private int postReceive(ReceiveRequest request) {
        enter();
        try {
            request.prepare(pd);
            return bound ? BoundVerbs.postSrqRecv(address, request.address(), badReceiveAddress)
                    : InlineVerbs.postSrqRecv(postSrqRecvFn, address, request.address(), badReceiveAddress);
        } finally {
            exit();
            Reference.reachabilityFence(request);
        }
    }

    /**
     * Arms the limit ({@code ibv_modify_srq} with {@code IBV_SRQ_LIMIT}): when a receive taken
     * from this queue leaves fewer than {@code limit} posted receives, the device raises
     * {@link AsyncEventType#SRQ_LIMIT_REACHED} once, naming this queue, and disarms the limit
     * (it reads 0 again in {@link #query()}). Arm it again after refilling. 0 disarms it.
     *
     * @param limit at most {@link #maxWorkRequests()}; 0 to disarm
     * @throws RdmaException EINVAL when the device refuses the value (above the queue's size)
     */
    @Reaches("ibv_modify_srq")
    public void armLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("an SRQ limit is not negative: " + limit);
        }
        modify(0, limit, LIMIT, "limit " + limit);
    }

    /**
     * Grows the queue to hold at least {@code maxWorkRequests} receives ({@code ibv_modify_srq}
     * with {@code IBV_SRQ_MAX_WR}); posted receives stay posted. Only devices with
     * {@code IBV_DEVICE_SRQ_RESIZE} can ({@link DeviceAttributes#canResizeSharedReceiveQueue()}):
     * others throw {@link OperationNotSupportedException} without a native call. Not while
     * another thread posts to this queue.
     *
     * @param maxWorkRequests the new size, at least the current one
     */
    @Reaches("ibv_modify_srq")
    public void resize(int maxWorkRequests) {
        if (maxWorkRequests < 1) {
            throw new IllegalArgumentException("a shared receive queue needs at least 1 work request, not "
                    + maxWorkRequests);
        }
        if (!pd.context().queryDevice().canResizeSharedReceiveQueue()) {
            throw RdmaException.of(Verb.IBV_MODIFY_SRQ, this, Errno.EOPNOTSUPP,
                    "the device does not report IBV_DEVICE_SRQ_RESIZE, so its shared receive queues keep their size");
        }
        modify(maxWorkRequests, 0, MAX_WR, "max_wr " + maxWorkRequests);
        this.maxWorkRequests = query().maxWorkRequests();
    }

    /** {@code IBV_SRQ_MAX_WR} and {@code IBV_SRQ_LIMIT} of {@code enum ibv_srq_attr_mask}. */
    private static final int MAX_WR = 1;
    private static final int LIMIT = 2;

    private void modify(int maxWr, int limit, int mask, String what) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment attr = arena.allocate(ibv_srq_attr.layout());
            ibv_srq_attr.max_wr(attr, maxWr);
            ibv_srq_attr.srq_limit(attr, limit);
            int rc = rdma_h.ibv_modify_srq(handle, attr, mask);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_MODIFY_SRQ, this, rc, "to " + what + " (the queue holds "
                        + maxWorkRequests + " receives)");
            }
        }
    }

    /** {@return the queue's sizes and armed limit, as the device reports them ({@code ibv_query_srq})} */
    @Reaches("ibv_query_srq")
    public SharedReceiveQueueAttributes query() {
        try (Arena arena = Arena.ofConfined(); var _ = hold(this)) {
            MemorySegment attr = arena.allocate(ibv_srq_attr.layout());
            RdmaException.check(Verb.IBV_QUERY_SRQ, this, rdma_h.ibv_query_srq(handle, attr));
            return new SharedReceiveQueueAttributes(ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr),
                    ibv_srq_attr.srq_limit(attr));
        }
    }

    @Override
    @Reaches("ibv_destroy_srq")
    protected void release() {
        if (creator != null) {
            creator.destroy();   // rdma_destroy_srq also clears id->srq
            return;
        }
        RdmaException.check(Verb.IBV_DESTROY_SRQ, this, rdma_h.ibv_destroy_srq(handle));
    }

    /**
     * Builds a shared receive queue with {@code ibv_create_srq_ex}: a basic SRQ (what
     * {@link ProtectionDomain#createSharedReceiveQueue} makes), optionally tied to a completion
     * queue, an XRC SRQ of an {@link XrcDomain}, or a tag-matching SRQ. From
     * {@link ProtectionDomain#sharedReceiveQueue()}.
     *
     * <p>A basic SRQ without a completion queue is created with plain {@code ibv_create_srq}, as the
     * C inline does; everything else goes to the provider's {@code create_srq_ex}. rxe (rdma-core
     * 44) creates basic SRQs both ways and refuses tag matching with EOPNOTSUPP; it has no XRC
     * domain to build an XRC SRQ on. Refusals throw {@link OperationNotSupportedException}.
     */
    public static final class Builder {
        private final ProtectionDomain pd;
        private int maxWorkRequests = 64;
        private int maxSges = 1;
        private CompletionQueue completionQueue;
        private XrcDomain xrcDomain;
        private int maxTags;
        private int maxTagOperations;

        Builder(ProtectionDomain pd) {
            this.pd = pd;
        }

        /**
         * Sets how many receives the queue holds.
         *
         * @param maxWorkRequests the most receives the queue holds (default 64)
         * @return this builder
         */
        public Builder maxWorkRequests(int maxWorkRequests) {
            this.maxWorkRequests = maxWorkRequests;
            return this;
        }

        /**
         * Sets how many SGEs a receive may have.
         *
         * @param maxSges the most SGEs per receive (default 1)
         * @return this builder
         */
        public Builder maxSges(int maxSges) {
            this.maxSges = maxSges;
            return this;
        }

        /**
         * Ties the SRQ to {@code cq} ({@code IBV_SRQ_INIT_ATTR_CQ}): required for XRC and tag
         * matching, where receives complete on the SRQ's CQ rather than a QP's.
         *
         * @param cq the completion queue
         * @return this builder
         */
        public Builder completionQueue(CompletionQueue cq) {
            this.completionQueue = Objects.requireNonNull(cq, "cq");
            return this;
        }

        /**
         * Makes it an XRC SRQ of {@code domain} ({@code IBV_SRQT_XRC}); needs a
         * {@link #completionQueue}. Its number ({@link SharedReceiveQueue#srqNumber()}) is what
         * initiators send to.
         *
         * @param domain the XRC domain
         * @return this builder
         */
        public Builder xrc(XrcDomain domain) {
            this.xrcDomain = Objects.requireNonNull(domain, "domain");
            return this;
        }

        /**
         * Makes it a tag-matching SRQ ({@code IBV_SRQT_TM}; see
         * {@link DeviceAttributes#tagMatching()}); needs a {@link #completionQueue}.
         *
         * @param maxTags          tags the SRQ holds at once
         * @param maxTagOperations outstanding tag operations ({@link TagOperation})
         * @return this builder
         */
        public Builder tagMatching(int maxTags, int maxTagOperations) {
            if (maxTags < 1 || maxTagOperations < 1) {
                throw new IllegalArgumentException("tag matching needs at least 1 tag and 1 operation, not " + maxTags
                        + " and " + maxTagOperations);
            }
            this.maxTags = maxTags;
            this.maxTagOperations = maxTagOperations;
            return this;
        }

        /** {@return the shared receive queue, owned by the protection domain (and the CQ and XRC domain it uses)} */
        @Reaches({"ibv_create_srq_ex"})
        public SharedReceiveQueue build() {
            if (maxWorkRequests < 1 || maxSges < 1) {
                throw new IllegalArgumentException("a shared receive queue needs at least 1 work request and 1 SGE, not "
                        + maxWorkRequests + " and " + maxSges);
            }
            if (xrcDomain != null && maxTags > 0) {
                throw new IllegalArgumentException("an SRQ is either XRC or tag matching, not both");
            }
            if ((xrcDomain != null || maxTags > 0) && completionQueue == null) {
                throw new IllegalArgumentException("XRC and tag-matching SRQs need a completion queue");
            }
            pd.checkOpen();
            Context context = pd.context();
            int type = xrcDomain != null ? rdma_h.IBV_SRQT_XRC() : maxTags > 0 ? rdma_h.IBV_SRQT_TM() : rdma_h.IBV_SRQT_BASIC();
            String kind = xrcDomain != null ? "XRC SRQs" : maxTags > 0 ? "tag-matching SRQs" : "extended SRQs";
            try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(pd, completionQueue, xrcDomain, context)) {
                MemorySegment init = arena.allocate(ibv_srq_init_attr_ex.layout());
                MemorySegment attr = ibv_srq_init_attr_ex.attr(init);
                ibv_srq_attr.max_wr(attr, maxWorkRequests);
                ibv_srq_attr.max_sge(attr, maxSges);
                int mask = rdma_h.IBV_SRQ_INIT_ATTR_PD() | rdma_h.IBV_SRQ_INIT_ATTR_TYPE();
                ibv_srq_init_attr_ex.pd(init, pd.handle());
                ibv_srq_init_attr_ex.srq_type(init, type);
                if (completionQueue != null) {
                    mask |= rdma_h.IBV_SRQ_INIT_ATTR_CQ();
                    ibv_srq_init_attr_ex.cq(init, completionQueue.handle());
                }
                if (xrcDomain != null) {
                    mask |= rdma_h.IBV_SRQ_INIT_ATTR_XRCD();
                    ibv_srq_init_attr_ex.xrcd(init, xrcDomain.handle());
                }
                if (maxTags > 0) {
                    mask |= rdma_h.IBV_SRQ_INIT_ATTR_TM();
                    MemorySegment tm = ibv_srq_init_attr_ex.tm_cap(init);
                    ibv_tm_cap.max_num_tags(tm, maxTags);
                    ibv_tm_cap.max_ops(tm, maxTagOperations);
                }
                ibv_srq_init_attr_ex.comp_mask(init, mask);
                MemorySegment errno = Errno.allocate(arena);
                MemorySegment srq = ExtensionVerbs.ibv_create_srq_ex(errno, context.handle(), init);
                RdmaException.checkCreated(Verb.IBV_CREATE_SRQ_EX, pd + ", " + maxWorkRequests + " work requests, "
                        + maxSges + " SGEs" + (completionQueue == null ? "" : ", " + completionQueue), errno, srq,
                        context, kind);
                return SharedReceiveQueue.wrap(pd, srq, ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr),
                        completionQueue, xrcDomain);
            }
        }
    }
}
