// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/** The state of a queue pair ({@code enum ibv_qp_state}). */
public enum QueuePairState {
    /** Just created or reset: nothing can be posted. */
    RESET(0),
    /** Receives can be posted; nothing is processed yet. */
    INIT(1),
    /** Ready to receive. */
    RTR(2),
    /** Ready to send: fully operational. */
    RTS(3),
    /** Send queue drained. */
    SQD(4),
    /** Send queue error (UD/UC). */
    SQE(5),
    /** Error: outstanding work requests complete with WR_FLUSH_ERR. */
    ERR(6),
    /** A value this version of jrdma does not know. */
    UNKNOWN(7);

    private static final CValues<QueuePairState> BY_VALUE =
            new CValues<>(values(), c -> c.value, UNKNOWN, "QueuePairState");

    private final int value;

    QueuePairState(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /** The constant for a C value; {@link #UNKNOWN} for values this version does not know. */
    static QueuePairState of(int value) {
        return BY_VALUE.of(value);
    }
}
