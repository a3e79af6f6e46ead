// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.QpAttribute.*;
import static dev.jrdma.QueuePairState.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The state-transition table that explains EINVAL from ibv_modify_qp. */
class QpTransitionsTest {
    private static final int RC_INIT = mask(STATE, PKEY_INDEX, PORT, ACCESS_FLAGS);
    private static final int RC_RTR = mask(STATE, AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER);
    private static final int RC_RTS = mask(STATE, TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC);

    @Test
    void theMasksJrdmaUsesAreAccepted() {
        assertEquals("", QpTransitions.explain(QueuePairType.RC, RESET, INIT, RC_INIT));
        assertEquals("", QpTransitions.explain(QueuePairType.RC, INIT, RTR, RC_RTR));
        assertEquals("", QpTransitions.explain(QueuePairType.RC, RTR, RTS, RC_RTS));
        assertEquals("", QpTransitions.explain(QueuePairType.UC, RESET, INIT, RC_INIT));
        assertEquals("", QpTransitions.explain(QueuePairType.UC, INIT, RTR, mask(STATE, AV, PATH_MTU, DEST_QPN, RQ_PSN)));
        assertEquals("", QpTransitions.explain(QueuePairType.UC, RTR, RTS, mask(STATE, SQ_PSN)));
        assertEquals("", QpTransitions.explain(QueuePairType.UD, RESET, INIT, mask(STATE, PKEY_INDEX, PORT, QKEY)));
        assertEquals("", QpTransitions.explain(QueuePairType.UD, INIT, RTR, mask(STATE)));
        assertEquals("", QpTransitions.explain(QueuePairType.UD, RTR, RTS, mask(STATE, SQ_PSN)));
        for (QueuePairState from : new QueuePairState[] {RESET, INIT, RTR, RTS, SQD, SQE, ERR}) {
            assertEquals("", QpTransitions.explain(QueuePairType.RC, from, ERR, mask(STATE)));
            assertEquals("", QpTransitions.explain(QueuePairType.RC, from, RESET, mask(STATE)));
        }
    }

    @Test
    void namesMissingRequiredBits() {
        assertEquals("INIT -> RTR for RC: missing required [IBV_QP_MIN_RNR_TIMER, IBV_QP_MAX_DEST_RD_ATOMIC]",
                QpTransitions.explain(QueuePairType.RC, INIT, RTR, mask(STATE, AV, PATH_MTU, DEST_QPN, RQ_PSN)));
        assertEquals("RESET -> INIT for UD: missing required [IBV_QP_QKEY]",
                QpTransitions.explain(QueuePairType.UD, RESET, INIT, mask(STATE, PKEY_INDEX, PORT)));
    }

    @Test
    void namesBitsNotAllowed() {
        assertEquals("RESET -> INIT for UD: missing required [IBV_QP_QKEY]; not allowed [IBV_QP_ACCESS_FLAGS]",
                QpTransitions.explain(QueuePairType.UD, RESET, INIT, RC_INIT));
        assertEquals("RTR -> RTS for UC: not allowed [IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY,"
                        + " IBV_QP_MAX_QP_RD_ATOMIC]",
                QpTransitions.explain(QueuePairType.UC, RTR, RTS, RC_RTS));
        assertEquals("RESET -> INIT for RC: not allowed [IBV_QP_SQ_PSN]",
                QpTransitions.explain(QueuePairType.RC, RESET, INIT, RC_INIT | SQ_PSN.bit));
    }

    @Test
    void optionalBitsAreAllowed() {
        assertEquals("", QpTransitions.explain(QueuePairType.RC, RTR, RTS, RC_RTS | MIN_RNR_TIMER.bit | ACCESS_FLAGS.bit));
        assertEquals("", QpTransitions.explain(QueuePairType.RC, INIT, RTR, RC_RTR | PKEY_INDEX.bit));
        assertEquals("", QpTransitions.explain(QueuePairType.RC, INIT, INIT, mask(STATE, ACCESS_FLAGS)));
    }

    @Test
    void namesInvalidTransitions() {
        assertEquals("RESET -> RTS is not a valid transition for a RC queue pair (from RESET it can go to RESET,"
                + " INIT, ERR)", QpTransitions.explain(QueuePairType.RC, RESET, RTS, RC_RTS));
        assertEquals("INIT -> RTS is not a valid transition for a RC queue pair (from INIT it can go to RESET, INIT,"
                + " RTR, ERR)", QpTransitions.explain(QueuePairType.RC, INIT, RTS, RC_RTS));
        assertNull(QpTransitions.rule(QueuePairType.RC, RTS, RTR));
        assertNotNull(QpTransitions.rule(QueuePairType.RC, RTS, RTS));
    }

    @Test
    void aMaskWithoutStateRequestsNothing() {
        assertEquals("RTR -> RTS for RC: IBV_QP_STATE is missing, so no transition is requested",
                QpTransitions.explain(QueuePairType.RC, RTR, RTS, RC_RTS & ~STATE.bit));
    }

    @Test
    void unknownBitsAreShownInHex() {
        assertEquals(java.util.List.of("IBV_QP_STATE", "0x4000000"), QpAttribute.names(STATE.bit | 1 << 26));
    }
}
