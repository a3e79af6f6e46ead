// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.QpAttribute.*;

import java.util.ArrayList;
import java.util.List;

/**
 * The queue pair state-transition table of the InfiniBand specification (vol. 1, 10.3.1 and
 * 11.2.4.2, the same table as the kernel's {@code ib_modify_qp_is_ok}) for RC, UC and UD: which
 * transitions exist and which attribute-mask bits each requires or allows. Used to explain an
 * EINVAL from {@code ibv_modify_qp}, which says nothing by itself.
 */
final class QpTransitions {
    private QpTransitions() {}

    /** Required and optional mask bits of one transition; null from {@link #rule} = no such transition. */
    record Rule(int required, int optional) {}

    static Rule rule(QueuePairType type, QueuePairState from, QueuePairState to) {
        if (to == QueuePairState.RESET || to == QueuePairState.ERR) {
            return from == QueuePairState.UNKNOWN ? null : new Rule(0, 0);
        }
        boolean ud = type == QueuePairType.UD;
        boolean rc = type == QueuePairType.RC;
        return switch (from) {
            case RESET -> to == QueuePairState.INIT
                    ? new Rule(ud ? mask(PKEY_INDEX, PORT, QKEY) : mask(PKEY_INDEX, PORT, ACCESS_FLAGS), 0)
                    : null;
            case INIT -> switch (to) {
                case INIT -> new Rule(0, ud ? mask(PKEY_INDEX, PORT, QKEY) : mask(PKEY_INDEX, PORT, ACCESS_FLAGS));
                case RTR -> new Rule(
                        ud ? 0 : rc
                                ? mask(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER)
                                : mask(AV, PATH_MTU, DEST_QPN, RQ_PSN),
                        ud ? mask(PKEY_INDEX, QKEY) : mask(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
                default -> null;
            };
            case RTR -> to == QueuePairState.RTS
                    ? new Rule(rc ? mask(SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC) : mask(SQ_PSN),
                            ud ? mask(CUR_STATE, QKEY) : rc
                                    ? mask(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE)
                                    : mask(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE))
                    : null;
            case RTS -> to == QueuePairState.RTS
                    ? new Rule(0, ud ? mask(CUR_STATE, QKEY) : rc
                            ? mask(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER)
                            : mask(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE))
                    : null;
            default -> null;   // SQD/SQE transitions are not used by jrdma
        };
    }

    /**
     * Why {@code mask} is not acceptable for moving a {@code type} QP from {@code from} to
     * {@code to}: the transition does not exist, or bits are missing or not allowed. Empty when
     * the mask matches the table (then the EINVAL came from an attribute value).
     */
    static String explain(QueuePairType type, QueuePairState from, QueuePairState to, int mask) {
        Rule rule = rule(type, from, to);
        if (rule == null) {
            List<String> valid = new ArrayList<>();
            for (QueuePairState s : QueuePairState.values()) {
                if (rule(type, from, s) != null) {
                    valid.add(s.name());
                }
            }
            return from + " -> " + to + " is not a valid transition for a " + type + " queue pair"
                    + (valid.isEmpty() ? "" : " (from " + from + " it can go to " + String.join(", ", valid) + ")");
        }
        List<String> problems = new ArrayList<>();
        if ((mask & STATE.bit) == 0) {
            problems.add("IBV_QP_STATE is missing, so no transition is requested");
        }
        int missing = rule.required() & ~mask;
        if (missing != 0) {
            problems.add("missing required " + QpAttribute.names(missing));
        }
        int extra = mask & ~(rule.required() | rule.optional() | STATE.bit);
        if (extra != 0) {
            problems.add("not allowed " + QpAttribute.names(extra));
        }
        if (problems.isEmpty()) {
            return "";
        }
        return from + " -> " + to + " for " + type + ": " + String.join("; ", problems);
    }
}
