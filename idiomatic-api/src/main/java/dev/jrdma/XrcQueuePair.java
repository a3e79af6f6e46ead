// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_qp_cap;
import dev.jrdma.bindings.generated.ibv_qp_init_attr_ex;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.VerbsContextOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An XRC queue pair: an initiator ({@code IBV_QPT_XRC_SEND}, from
 * {@link ProtectionDomain#createXrcSendQueuePair}) or a target ({@code IBV_QPT_XRC_RECV}, from
 * {@link XrcDomain#createTargetQueuePair()} or opened with
 * {@link XrcDomain#openTargetQueuePair(int)}). Devices without XRC refuse to create either with
 * {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code <kind> <qpn> on <device>}.
 */
public final class XrcQueuePair extends NativeObject {
    private final int qpNumber;

    XrcQueuePair(Context context, MemorySegment handle, String kind, NativeResource... owners) {
        super(handle, kind + " " + ibv_qp.qp_num(handle) + " on " + context.name(), owners);
        this.qpNumber = ibv_qp.qp_num(handle);
    }

    static XrcQueuePair createInitiator(ProtectionDomain pd, CompletionQueue cq, int maxSendWorkRequests, int maxSges) {
        Context context = pd.context();
        try (Arena arena = Arena.ofConfined(); var _ = hold(pd, cq)) {
            MemorySegment attr = arena.allocate(ibv_qp_init_attr_ex.layout());
            ibv_qp_init_attr_ex.qp_type(attr, rdma_h.IBV_QPT_XRC_SEND());
            ibv_qp_init_attr_ex.send_cq(attr, cq.handle());
            ibv_qp_init_attr_ex.recv_cq(attr, cq.handle());
            MemorySegment cap = ibv_qp_init_attr_ex.cap(attr);
            ibv_qp_cap.max_send_wr(cap, maxSendWorkRequests);
            ibv_qp_cap.max_send_sge(cap, maxSges);
            ibv_qp_init_attr_ex.comp_mask(attr, rdma_h.IBV_QP_INIT_ATTR_PD());
            ibv_qp_init_attr_ex.pd(attr, pd.handle());
            return create(context, attr, "XRC initiator QP", pd + ", " + cq, pd, cq);
        }
    }

    static XrcQueuePair createTarget(XrcDomain domain) {
        Context context = domain.context();
        try (Arena arena = Arena.ofConfined(); var _ = hold(domain)) {
            MemorySegment attr = arena.allocate(ibv_qp_init_attr_ex.layout());
            ibv_qp_init_attr_ex.qp_type(attr, rdma_h.IBV_QPT_XRC_RECV());
            ibv_qp_init_attr_ex.comp_mask(attr, rdma_h.IBV_QP_INIT_ATTR_XRCD());
            ibv_qp_init_attr_ex.xrcd(attr, domain.handle());
            return create(context, attr, "XRC target QP", domain.toString(), domain);
        }
    }

    private static XrcQueuePair create(Context context, MemorySegment attr, String kind, String on,
                                       NativeResource... owners) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment qp = VerbsContextOps.ibv_create_qp_ex(errno, context.handle(), attr);
            RdmaException.checkCreated(Verb.IBV_CREATE_QP, kind + " on " + on, errno, qp, context, "XRC queue pairs");
            return wrapCreated(qp, ibv_qp.layout(), h -> new XrcQueuePair(context, h, kind, owners),
                    rdma_h::ibv_destroy_qp);
        }
    }

    /** {@return the queue pair number} */
    public int qpNumber() {
        return qpNumber;
    }

    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_QP, this, rdma_h.ibv_destroy_qp(handle));
    }
}
