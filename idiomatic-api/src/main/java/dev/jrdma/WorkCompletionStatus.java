// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.CValues;

/** The outcome of a work request ({@code enum ibv_wc_status}). */
public enum WorkCompletionStatus {
    /** Completed successfully. */
    SUCCESS(0),
    /** Local length error: e.g. a message larger than the receive buffer. */
    LOC_LEN_ERR(1),
    /** Local QP operation error: an internal consistency error of the work request. */
    LOC_QP_OP_ERR(2),
    /** Local EE context operation error (RD only). */
    LOC_EEC_OP_ERR(3),
    /** Local protection error: an SGE not covered by its memory region, or wrong rights. */
    LOC_PROT_ERR(4),
    /** Flushed: the QP entered the error state before this request was processed. */
    WR_FLUSH_ERR(5),
    /** Memory window bind error. */
    MW_BIND_ERR(6),
    /** Bad response: an unexpected transport opcode from the responder. */
    BAD_RESP_ERR(7),
    /** Local access error: a protection error on a local buffer of an RDMA READ or atomic. */
    LOC_ACCESS_ERR(8),
    /** Remote invalid request: the responder saw an invalid message (e.g. unsupported operation). */
    REM_INV_REQ_ERR(9),
    /** Remote access error: bad rkey, range or rights at the responder. */
    REM_ACCESS_ERR(10),
    /** Remote operation error: the responder could not complete the operation. */
    REM_OP_ERR(11),
    /** Transport retry counter exceeded: the peer did not answer. */
    RETRY_EXC_ERR(12),
    /** RNR retry counter exceeded: the peer had no receive posted. */
    RNR_RETRY_EXC_ERR(13),
    /** Local RDD violation (RD only). */
    LOC_RDD_VIOL_ERR(14),
    /** Remote invalid RD request (RD only). */
    REM_INV_RD_REQ_ERR(15),
    /** Remote aborted. */
    REM_ABORT_ERR(16),
    /** Invalid EE context number (RD only). */
    INV_EECN_ERR(17),
    /** Invalid EE context state (RD only). */
    INV_EEC_STATE_ERR(18),
    /** Fatal error. */
    FATAL_ERR(19),
    /** Response timeout. */
    RESP_TIMEOUT_ERR(20),
    /** General error. */
    GENERAL_ERR(21),
    /** Tag matching error. */
    TM_ERR(22),
    /** Tag matching rendezvous incomplete. */
    TM_RNDV_INCOMPLETE(23),
    /** A status this version of jrdma does not know. */
    UNKNOWN(-1);

    private static final WorkCompletionStatus[] BY_VALUE = values();

    private final int value;
    private String description;

    WorkCompletionStatus(int value) {
        this.value = value;
    }

    int value() {
        return value;
    }

    /** The constant for a C value; allocation-free (the data path calls it per completion). */
    static WorkCompletionStatus of(int value) {
        return value >= 0 && value < BY_VALUE.length - 1 ? BY_VALUE[value] : UNKNOWN;
    }

    /** {@return libibverbs' text for this status ({@code ibv_wc_status_str}), e.g. "remote access error"} */
    public String description() {
        String d = description;
        if (d == null) {
            d = CValues.text(rdma_h.ibv_wc_status_str(value), name());
            description = d;
        }
        return d;
    }
}
