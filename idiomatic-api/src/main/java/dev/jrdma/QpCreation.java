// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_qp;
import dev.jrdma.bindings.generated.ibv_qp_cap;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.ibv_qp_init_attr_ex;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.bindings.shim.VerbsContextOps;
import dev.jrdma.internal.NativeCreator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Creates the native queue pair a {@link QueuePair.Builder} describes, with {@code ibv_create_qp}
 * or through a {@link NativeCreator} (rdma_cm's {@code rdma_create_qp} on an id); kept apart from QueuePair, which holds the
 * queue pair's life after creation.
 */
final class QpCreation {
    private QpCreation() {}

    /** A builder's queue depth or SGE count: at least 1. */
    static int positive(String what, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, not " + value);
        }
        return value;
    }

    static QueuePair create(QueuePair.Builder b, NativeCreator creator) {
        if (b.sendCq == null || b.receiveCq == null) {
            throw new IllegalStateException("a queue pair needs a send and a receive completion queue");
        }
        if (b.sendCq.context() != b.pd.context() || b.receiveCq.context() != b.pd.context()) {
            throw new IllegalArgumentException("the completion queues and the protection domain must belong to"
                    + " the same context");
        }
        if (b.srq != null && b.srq.protectionDomain() != b.pd) {
            throw new IllegalArgumentException(b.srq + " is not in " + b.pd);
        }
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(b.pd, b.sendCq, b.receiveCq, b.srq,
                creator == null ? null : creator.owner())) {
            // ibv_qp_init_attr is the prefix of ibv_qp_init_attr_ex: one allocation serves both verbs.
            MemorySegment init = arena.allocate(ibv_qp_init_attr_ex.layout());
            if (b.srq != null) {
                ibv_qp_init_attr.srq(init, b.srq.handle());
            }
            ibv_qp_init_attr.send_cq(init, b.sendCq.handle());
            ibv_qp_init_attr.recv_cq(init, b.receiveCq.handle());
            ibv_qp_init_attr.qp_type(init, b.type.value());
            ibv_qp_init_attr.sq_sig_all(init, b.signalAll ? 1 : 0);
            MemorySegment cap = ibv_qp_init_attr.cap(init);
            ibv_qp_cap.max_send_wr(cap, b.maxSendWr);
            ibv_qp_cap.max_recv_wr(cap, b.maxReceiveWr);
            ibv_qp_cap.max_send_sge(cap, b.maxSendSge);
            ibv_qp_cap.max_recv_sge(cap, b.maxReceiveSge);
            ibv_qp_cap.max_inline_data(cap, b.maxInlineData);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment qp;
            if (b.sendOps != null) {
                if (creator != null) {
                    throw new IllegalArgumentException("the extended post API needs ibv_create_qp_ex; build the queue"
                            + " pair without an rdma_cm id and connect it with connect(Endpoint)");
                }
                ibv_qp_init_attr_ex.comp_mask(init, rdma_h.IBV_QP_INIT_ATTR_PD() | rdma_h.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS());
                ibv_qp_init_attr_ex.pd(init, b.pd.handle());
                ibv_qp_init_attr_ex.send_ops_flags(init, SendOp.flags(b.sendOps));
                qp = VerbsContextOps.ibv_create_qp_ex(errno, b.pd.context().handle(), init);
            } else if (creator == null) {
                qp = ErrnoVerbs.ibv_create_qp(errno, b.pd.handle(), init);
            } else {
                qp = creator.create(errno, b.pd.handle(), init);
            }
            if (qp.address() == 0) {
                Verb verb = b.sendOps != null ? Verb.IBV_CREATE_QP_EX : creator == null ? Verb.IBV_CREATE_QP : creator.verb();
                throw RdmaException.of(verb, b.pd + ", " + b.type + ", send/receive WRs " + b.maxSendWr + "/"
                        + b.maxReceiveWr + ", SGEs " + b.maxSendSge + "/" + b.maxReceiveSge + ", inline " + b.maxInlineData
                        + (b.sendOps == null ? "" : ", send ops " + b.sendOps), Errno.get(errno),
                        Errno.get(errno) == Errno.EINVAL ? pastLimits(b) : null);
            }
            qp = qp.reinterpret(ibv_qp.layout().byteSize());
            // The provider writes the capabilities it granted back into init_attr.cap.
            QueuePairCapabilities granted = new QueuePairCapabilities(ibv_qp_cap.max_send_wr(cap),
                    ibv_qp_cap.max_recv_wr(cap), ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap),
                    ibv_qp_cap.max_inline_data(cap));
            try {
                QueuePair created = new QueuePair(b, creator, qp, granted);
                if (creator != null) {
                    created.refreshState();   // rdma_create_qp already moved it to INIT
                }
                return created;
            } catch (RuntimeException e) {
                if (creator == null) {
                    rdma_h.ibv_destroy_qp(qp);
                } else {
                    creator.destroy();
                }
                throw e;
            }
        }
    }

    /**
     * Which of the sizes asked for exceeds the device's limits, for the message of an EINVAL
     * (the provider does not say which); asked only after the create failed.
     */
    private static String pastLimits(QueuePair.Builder b) {
        DeviceAttributes device = b.pd.context().queryDevice();
        StringBuilder past = new StringBuilder();
        int wr = device.maxQpWr();
        int sge = device.maxSge();
        if (b.maxSendWr > wr || b.maxReceiveWr > wr) {
            past.append("the device's max_qp_wr is ").append(wr);
        }
        if (b.maxSendSge > sge || b.maxReceiveSge > sge) {
            past.append(past.isEmpty() ? "" : ", ").append("the device's max_sge is ").append(sge);
        }
        return past.isEmpty() ? null : past.toString();
    }
}
