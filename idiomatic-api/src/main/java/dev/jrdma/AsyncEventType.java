// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.CValues;

/** The kind of an asynchronous event ({@code enum ibv_event_type}). */
public enum AsyncEventType {
    /** A completion queue overran or failed. */
    CQ_ERR,
    /** A queue pair hit an error it cannot report through a completion; it is in ERR. */
    QP_FATAL,
    /** A queue pair received an invalid request (transport error); it is in ERR. */
    QP_REQ_ERR,
    /** A queue pair hit a local access violation; it is in ERR. */
    QP_ACCESS_ERR,
    /** A queue pair in RTR received its first packet (communication established). */
    COMM_EST,
    /** A send queue finished draining (SQD). */
    SQ_DRAINED,
    /** A queue pair migrated to its alternate path. */
    PATH_MIG,
    /** Path migration failed. */
    PATH_MIG_ERR,
    /** The device failed; the context is unusable. */
    DEVICE_FATAL,
    /** A port became active. */
    PORT_ACTIVE,
    /** A port went down. */
    PORT_ERR,
    /** A port's LID changed. */
    LID_CHANGE,
    /** A port's P_Key table changed. */
    PKEY_CHANGE,
    /** The subnet manager changed. */
    SM_CHANGE,
    /** A shared receive queue failed. */
    SRQ_ERR,
    /** A shared receive queue fell below its limit. */
    SRQ_LIMIT_REACHED,
    /** A queue pair on a shared receive queue in ERR will take no more receives. */
    QP_LAST_WQE_REACHED,
    /** The subnet manager asks for client re-registration. */
    CLIENT_REREGISTER,
    /** A port's GID table changed. */
    GID_CHANGE,
    /** A work queue failed. */
    WQ_FATAL,
    /** An event type this version of jrdma does not know. */
    UNKNOWN;

    /** The constant for a C value (the enum is dense from 0). */
    static AsyncEventType of(int value) {
        return CValues.dense(AsyncEventType.class, value, 0, UNKNOWN);
    }

    /** {@return libibverbs' text for the event ({@code ibv_event_type_str}), e.g. "port error"} */
    public String description() {
        return this == UNKNOWN ? "unknown" : CValues.text(rdma_h.ibv_event_type_str(ordinal()), name());
    }
}
