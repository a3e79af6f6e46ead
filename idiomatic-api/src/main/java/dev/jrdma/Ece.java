// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_ece;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Enhanced connection establishment options ({@code struct ibv_ece}): vendor-specific features
 * two peers agree on while connecting, read from one QP ({@link #query}) and set on the other
 * ({@link #applyTo}) before it moves to RTR. Providers without ECE (rxe) refuse both with
 * {@link OperationNotSupportedException}. With rdma_cm they travel in the connection request,
 * only on ids whose queue pair the application drives itself
 * ({@link dev.jrdma.cm.ExternalQueuePair#setLocalEce}, {@link dev.jrdma.cm.ExternalQueuePair#remoteEce}).
 *
 * @param vendorId the IEEE OUI of the vendor whose options these are (0 = no ECE)
 * @param options  the vendor's option bits
 */
public record Ece(int vendorId, int options) {
    /** No ECE: what a peer that sent none reports. */
    public static final Ece NONE = new Ece(0, 0);

    /**
     * {@return the ECE options {@code qp} offers or accepted}
     *
     * @param qp the queue pair
     */
    @Reaches({"ibv_query_ece"})
    public static Ece query(QueuePair qp) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment ece = arena.allocate(ibv_ece.layout());
            int rc = rdma_h.ibv_query_ece(qp.handle(), ece);
            RdmaException.check(Verb.IBV_QUERY_ECE, qp, rc,
                    qp.protectionDomain().context(), "enhanced connection establishment (ECE)");
            return new Ece(ibv_ece.vendor_id(ece), ibv_ece.options(ece));
        }
    }

    /**
     * Sets these options on {@code qp}, e.g. those its peer's {@link #query} returned.
     *
     * @param qp the queue pair, not yet connected
     */
    @Reaches({"ibv_set_ece"})
    public void applyTo(QueuePair qp) {
        if (vendorId == 0) {
            // libibverbs answers EOPNOTSUPP itself for vendor 0 (no vendor, nothing to set).
            throw new IllegalArgumentException("ECE options need a vendor id");
        }
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment ece = arena.allocate(ibv_ece.layout());
            ibv_ece.vendor_id(ece, vendorId);
            ibv_ece.options(ece, options);
            int rc = rdma_h.ibv_set_ece(qp.handle(), ece);
            RdmaException.check(Verb.IBV_SET_ECE, qp, rc,
                    qp.protectionDomain().context(), "enhanced connection establishment (ECE)");
        }
    }
}
