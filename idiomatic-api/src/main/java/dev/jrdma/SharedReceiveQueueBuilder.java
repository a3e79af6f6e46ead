// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_srq_attr;
import dev.jrdma.bindings.generated.ibv_srq_init_attr_ex;
import dev.jrdma.bindings.generated.ibv_tm_cap;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

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
public final class SharedReceiveQueueBuilder {
    private final ProtectionDomain pd;
    private int maxWorkRequests = 64;
    private int maxSges = 1;
    private CompletionQueue completionQueue;
    private XrcDomain xrcDomain;
    private int maxTags;
    private int maxTagOperations;

    SharedReceiveQueueBuilder(ProtectionDomain pd) {
        this.pd = pd;
    }

    /**
     * Sets how many receives the queue holds.
     *
     * @param maxWorkRequests the most receives the queue holds (default 64)
     * @return this builder
     */
    public SharedReceiveQueueBuilder maxWorkRequests(int maxWorkRequests) {
        this.maxWorkRequests = maxWorkRequests;
        return this;
    }

    /**
     * Sets how many SGEs a receive may have.
     *
     * @param maxSges the most SGEs per receive (default 1)
     * @return this builder
     */
    public SharedReceiveQueueBuilder maxSges(int maxSges) {
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
    public SharedReceiveQueueBuilder completionQueue(CompletionQueue cq) {
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
    public SharedReceiveQueueBuilder xrc(XrcDomain domain) {
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
    public SharedReceiveQueueBuilder tagMatching(int maxTags, int maxTagOperations) {
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
            if (srq.address() == 0) {
                int e = Errno.get(errno);
                throw RdmaException.of(Verb.IBV_CREATE_SRQ_EX, pd + ", " + maxWorkRequests + " work requests, "
                        + maxSges + " SGEs" + (completionQueue == null ? "" : ", " + completionQueue), e,
                        Unsupported.detail(context, e, kind));
            }
            return SharedReceiveQueue.wrap(pd, srq, ibv_srq_attr.max_wr(attr), ibv_srq_attr.max_sge(attr),
                    completionQueue, xrcDomain);
        }
    }
}
