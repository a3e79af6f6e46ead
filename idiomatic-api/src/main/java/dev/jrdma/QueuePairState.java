// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CValues;

/** The state of a queue pair ({@code enum ibv_qp_state}). */
public enum QueuePairState {
    /** Just created or reset: nothing can be posted. */
    RESET,
    /** Receives can be posted; nothing is processed yet. */
    INIT,
    /** Ready to receive. */
    RTR,
    /** Ready to send: fully operational. */
    RTS,
    /** Send queue drained. */
    SQD,
    /** Send queue error (UD/UC). */
    SQE,
    /** Error: outstanding work requests complete with WR_FLUSH_ERR. */
    ERR,
    /** A value this version of jrdma does not know. */
    UNKNOWN;

    /** The value of the C enum constant. */
    int value() {
        return ordinal();   // dense from IBV_QPS_RESET
    }

    /** The constant for a C value; {@link #UNKNOWN} for values this version does not know. */
    static QueuePairState of(int value) {
        return CValues.dense(QueuePairState.class, value, 0, UNKNOWN);
    }
}
