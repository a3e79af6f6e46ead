// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import dev.jrdma.bindings.generated.ibv_qp_cap;
import dev.jrdma.bindings.generated.ibv_qp_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.Set;

/**
 * A queue pair's attributes as the device reports them back ({@code ibv_query_qp} with every
 * attribute asked for): what the transitions so far gave it. A field the transitions have not
 * set yet reads as the provider leaves it, normally zero (e.g. the path before RTR, the send PSN
 * before RTS); a field the transport has no use for (the Q_Key of RC, the path of UD) likewise.
 *
 * @param state              the current state
 * @param port               the port of the INIT transition
 * @param pkeyIndex          the P_Key table entry of the INIT transition
 * @param qkey               the Q_Key (UD; UC and RC have none)
 * @param remoteAccess       the remote rights the INIT transition granted (RC and UC)
 * @param pathMtu            the path MTU of the RTR transition (RC and UC), empty before it
 * @param destQpNumber       the peer's queue pair number (RC and UC, from RTR)
 * @param receivePsn         the first PSN expected from the peer (from RTR)
 * @param sendPsn            the first PSN sent (from RTS)
 * @param path               the primary path's address vector (RC and UC, from RTR)
 * @param minRnrTimer        the RNR NAK timer this side asks the peer to wait (RC, from RTR)
 * @param maxDestReadAtomic  the READs and atomics this side answers at once (RC, from RTR)
 * @param timeout            the local ACK timeout exponent (RC, from RTS)
 * @param retryCount         the transport retries (RC, from RTS)
 * @param rnrRetry           the RNR retries, 7 for without limit (RC, from RTS)
 * @param maxReadAtomic      the READs and atomics this side has outstanding at once (RC, from RTS)
 * @param capabilities       the queue sizes as the device holds them now
 */
public record QueuePairAttributes(QueuePairState state, int port, int pkeyIndex, int qkey, Set<Access> remoteAccess,
                                  Optional<Mtu> pathMtu, int destQpNumber, int receivePsn, int sendPsn,
                                  AddressVector path, int minRnrTimer, int maxDestReadAtomic, int timeout,
                                  int retryCount, int rnrRetry, int maxReadAtomic,
                                  QueuePairCapabilities capabilities) {
    /** Every bit of {@code enum ibv_qp_attr_mask} that names something to read back. */
    private static final int EVERYTHING = QpAttribute.mask(QpAttribute.STATE, QpAttribute.ACCESS_FLAGS,
            QpAttribute.PKEY_INDEX, QpAttribute.PORT, QpAttribute.QKEY, QpAttribute.AV, QpAttribute.PATH_MTU,
            QpAttribute.TIMEOUT, QpAttribute.RETRY_CNT, QpAttribute.RNR_RETRY, QpAttribute.RQ_PSN,
            QpAttribute.MAX_QP_RD_ATOMIC, QpAttribute.MIN_RNR_TIMER, QpAttribute.SQ_PSN,
            QpAttribute.MAX_DEST_RD_ATOMIC, QpAttribute.CAP, QpAttribute.DEST_QPN);
    /** PSNs are 24 bits; a provider may keep more in the word it reports. */
    private static final int PSN_MASK = 0xFFFFFF;

    /** Copies the access set. */
    public QueuePairAttributes {
        remoteAccess = Set.copyOf(remoteAccess);
    }

    /** {@link QueuePair#query()}: one {@code ibv_query_qp} asking for every attribute. */
    static QueuePairAttributes query(QueuePair qp) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            RdmaException.check(Verb.IBV_QUERY_QP, qp, rdma_h.ibv_query_qp(qp.handle(), attr, EVERYTHING, init));
            int mtu = ibv_qp_attr.path_mtu(attr);
            MemorySegment cap = ibv_qp_attr.cap(attr);
            return new QueuePairAttributes(QueuePairState.of(ibv_qp_attr.qp_state(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.port_num(attr)), Short.toUnsignedInt(ibv_qp_attr.pkey_index(attr)),
                    ibv_qp_attr.qkey(attr), Access.of(ibv_qp_attr.qp_access_flags(attr)),
                    mtu == 0 ? Optional.empty() : Optional.of(Mtu.of(mtu)), ibv_qp_attr.dest_qp_num(attr),
                    ibv_qp_attr.rq_psn(attr) & PSN_MASK, ibv_qp_attr.sq_psn(attr) & PSN_MASK,
                    addressVector(ibv_qp_attr.ah_attr(attr)), Byte.toUnsignedInt(ibv_qp_attr.min_rnr_timer(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.max_dest_rd_atomic(attr)), Byte.toUnsignedInt(ibv_qp_attr.timeout(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.retry_cnt(attr)), Byte.toUnsignedInt(ibv_qp_attr.rnr_retry(attr)),
                    Byte.toUnsignedInt(ibv_qp_attr.max_rd_atomic(attr)),
                    new QueuePairCapabilities(ibv_qp_cap.max_send_wr(cap), ibv_qp_cap.max_recv_wr(cap),
                            ibv_qp_cap.max_send_sge(cap), ibv_qp_cap.max_recv_sge(cap), ibv_qp_cap.max_inline_data(cap)));
        }
    }

    private static AddressVector addressVector(MemorySegment ah) {
        MemorySegment grh = ibv_ah_attr.grh(ah);
        return new AddressVector(Byte.toUnsignedInt(ibv_ah_attr.port_num(ah)), Short.toUnsignedInt(ibv_ah_attr.dlid(ah)),
                Byte.toUnsignedInt(ibv_ah_attr.sl(ah)), ibv_ah_attr.is_global(ah) != 0,
                Gid.read(ibv_global_route.dgid(grh)), Byte.toUnsignedInt(ibv_global_route.sgid_index(grh)),
                Byte.toUnsignedInt(ibv_global_route.hop_limit(grh)),
                Byte.toUnsignedInt(ibv_global_route.traffic_class(grh)), ibv_global_route.flow_label(grh));
    }
}
