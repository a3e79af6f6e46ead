// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The bits of {@code enum ibv_qp_attr_mask}: which fields of {@code struct ibv_qp_attr} a modify_qp call sets. */
enum QpAttribute {
    STATE(1),
    CUR_STATE(1 << 1),
    EN_SQD_ASYNC_NOTIFY(1 << 2),
    ACCESS_FLAGS(1 << 3),
    PKEY_INDEX(1 << 4),
    PORT(1 << 5),
    QKEY(1 << 6),
    AV(1 << 7),
    PATH_MTU(1 << 8),
    TIMEOUT(1 << 9),
    RETRY_CNT(1 << 10),
    RNR_RETRY(1 << 11),
    RQ_PSN(1 << 12),
    MAX_QP_RD_ATOMIC(1 << 13),
    ALT_PATH(1 << 14),
    MIN_RNR_TIMER(1 << 15),
    SQ_PSN(1 << 16),
    MAX_DEST_RD_ATOMIC(1 << 17),
    PATH_MIG_STATE(1 << 18),
    CAP(1 << 19),
    DEST_QPN(1 << 20),
    RATE_LIMIT(1 << 25);

    final int bit;

    QpAttribute(int bit) {
        this.bit = bit;
    }

    /** {@code IBV_QP_PATH_MTU} style name, as in verbs.h. */
    String cName() {
        return "IBV_QP_" + name();
    }

    static int mask(QpAttribute... attributes) {
        return (int) CFlags.word(Arrays.asList(attributes), a -> a.bit);
    }

    /** The C names of the bits set in {@code mask}, lowest bit first; unknown bits as hex. */
    static List<String> names(int mask) {
        List<String> names = new ArrayList<>();
        int rest = mask;
        for (QpAttribute a : values()) {
            if ((mask & a.bit) != 0) {
                names.add(a.cName());
                rest &= ~a.bit;
            }
        }
        if (rest != 0) {
            names.add("0x" + Integer.toHexString(rest));
        }
        return names;
    }
}
