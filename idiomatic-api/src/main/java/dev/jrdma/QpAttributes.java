// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_ah_attr;
import dev.jrdma.bindings.generated.ibv_global_route;
import dev.jrdma.bindings.generated.ibv_qp_attr;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * The {@code struct ibv_qp_attr} contents and attribute masks of the transitions
 * {@link QueuePair} makes (RESET -> INIT -> RTR -> RTS), per transport; each method fills
 * {@code attr} and returns the mask to pass to {@code ibv_modify_qp} with it.
 */
final class QpAttributes {
    private QpAttributes() {}

    /** RESET -> INIT: the P_Key index of the options, the port, and remote access rights (RC/UC) or the Q_Key (UD). */
    static int init(MemorySegment attr, QueuePairType type, int port, ConnectionOptions options) {
        ibv_qp_attr.qp_state(attr, QueuePairState.INIT.value());
        ibv_qp_attr.pkey_index(attr, (short) options.pkeyIndex());
        ibv_qp_attr.port_num(attr, (byte) port);
        int mask = QpAttribute.mask(QpAttribute.STATE, QpAttribute.PKEY_INDEX, QpAttribute.PORT);
        if (type == QueuePairType.UD) {
            ibv_qp_attr.qkey(attr, options.qkey());
            mask |= QpAttribute.QKEY.bit;
        } else {
            Set<Access> access = options.remoteAccess();
            int flags = Access.flags(access);
            if (type == QueuePairType.UC) {
                // UC has no READ or atomics: only the write right is meaningful.
                flags &= Access.REMOTE_WRITE.bit();
            }
            ibv_qp_attr.qp_access_flags(attr, flags);
            mask |= QpAttribute.ACCESS_FLAGS.bit;
        }
        return mask;
    }

    /**
     * Fills an address vector ({@code struct ibv_ah_attr}) towards {@code remote}, as a connected
     * QP's path and a UD address handle both take it.
     */
    static void addressVector(MemorySegment ah, Endpoint remote, int port, int gidIndex, ConnectionOptions options) {
        ibv_ah_attr.port_num(ah, (byte) port);
        ibv_ah_attr.dlid(ah, (short) remote.lid());
        ibv_ah_attr.sl(ah, (byte) options.serviceLevel());
        if (!remote.gid().equals(Gid.ZERO)) {
            // RoCE has no LIDs: packets are routed by the GRH only, so the route must be global.
            ibv_ah_attr.is_global(ah, (byte) 1);
            MemorySegment grh = ibv_ah_attr.grh(ah);
            remote.gid().write(ibv_global_route.dgid(grh));
            ibv_global_route.sgid_index(grh, (byte) gidIndex);
            ibv_global_route.hop_limit(grh, (byte) options.hopLimit());
            ibv_global_route.traffic_class(grh, (byte) options.trafficClass());
            ibv_global_route.flow_label(grh, options.flowLabel());
        }
    }

    /**
     * INIT -> RTR; for RC/UC towards {@code remote} from {@code local} (the source GID entry
     * {@code gidIndex} of {@code port}), for UD the state alone.
     */
    static int rtr(MemorySegment attr, QueuePairType type, Endpoint local, Endpoint remote, int port, int gidIndex,
                   ConnectionOptions options) {
        ibv_qp_attr.qp_state(attr, QueuePairState.RTR.value());
        int mask = QpAttribute.STATE.bit;
        if (type != QueuePairType.UD) {
            ibv_qp_attr.path_mtu(attr, local.mtu().min(remote.mtu()).value());
            ibv_qp_attr.dest_qp_num(attr, remote.qpn());
            ibv_qp_attr.rq_psn(attr, remote.psn());
            addressVector(ibv_qp_attr.ah_attr(attr), remote, port, gidIndex, options);
            mask |= QpAttribute.mask(QpAttribute.AV, QpAttribute.PATH_MTU, QpAttribute.DEST_QPN,
                    QpAttribute.RQ_PSN);
            if (type == QueuePairType.RC) {
                ibv_qp_attr.max_dest_rd_atomic(attr, (byte) options.maxDestReadAtomic());
                ibv_qp_attr.min_rnr_timer(attr, (byte) options.minRnrTimer());
                mask |= QpAttribute.mask(QpAttribute.MAX_DEST_RD_ATOMIC, QpAttribute.MIN_RNR_TIMER);
            }
        }
        return mask;
    }

    /** RTR -> RTS: the send PSN, and for RC the retry settings. */
    static int rts(MemorySegment attr, QueuePairType type, int sqPsn, ConnectionOptions options) {
        ibv_qp_attr.qp_state(attr, QueuePairState.RTS.value());
        ibv_qp_attr.sq_psn(attr, sqPsn);
        int mask = QpAttribute.mask(QpAttribute.STATE, QpAttribute.SQ_PSN);
        if (type == QueuePairType.RC) {
            ibv_qp_attr.timeout(attr, (byte) options.timeout());
            ibv_qp_attr.retry_cnt(attr, (byte) options.retryCount());
            ibv_qp_attr.rnr_retry(attr, (byte) options.rnrRetry());
            ibv_qp_attr.max_rd_atomic(attr, (byte) options.maxReadAtomic());
            mask |= QpAttribute.mask(QpAttribute.TIMEOUT, QpAttribute.RETRY_CNT, QpAttribute.RNR_RETRY,
                    QpAttribute.MAX_QP_RD_ATOMIC);
        }
        return mask;
    }
}
