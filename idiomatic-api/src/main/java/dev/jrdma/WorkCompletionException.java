// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * A work request completed with an error status. Thrown by {@link WorkCompletion#checkSuccess()};
 * it copies what the completion said, so it stays valid after the completion view is reused.
 */
public final class WorkCompletionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The completion status. */
    private final WorkCompletionStatus status;
    /** The wr_id of the failed request. */
    private final long wrId;
    /** The local queue pair number. */
    private final int queuePairNumber;
    /** The provider's error code. */
    private final int vendorError;

    WorkCompletionException(WorkCompletionStatus status, long wrId, int queuePairNumber, int vendorError) {
        super("work request wr_id " + wrId + " on queue pair 0x" + Integer.toHexString(queuePairNumber)
                        + " completed with " + status + " (" + status.description() + ")"
                        + (vendorError != 0 ? ", vendor error 0x" + Integer.toHexString(vendorError) : ""),
                Verb.IBV_POLL_CQ, "queue pair 0x" + Integer.toHexString(queuePairNumber), 0);
        this.status = status;
        this.wrId = wrId;
        this.queuePairNumber = queuePairNumber;
        this.vendorError = vendorError;
    }

    /** {@return the completion status (never {@link WorkCompletionStatus#SUCCESS})} */
    public WorkCompletionStatus status() {
        return status;
    }

    /** {@return the wr_id of the failed work request} */
    public long wrId() {
        return wrId;
    }

    /** {@return the number of the local queue pair the work request was posted to} */
    public int queuePairNumber() {
        return queuePairNumber;
    }

    /** {@return the provider's vendor-specific error code (0 when none)} */
    public int vendorError() {
        return vendorError;
    }
}
