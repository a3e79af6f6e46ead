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

    private static final QueuePairState[] BY_VALUE = new QueuePairState[256];
    static {
        for (QueuePairState e : values()) {
            if (e.value >= 0 && e.value < BY_VALUE.length) {
                BY_VALUE[e.value] = e;
            }
        }
    }

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
        QueuePairState e = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return e != null ? e : UNKNOWN;
    }
}
