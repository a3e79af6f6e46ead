// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * Enhanced Connection Establishment options ({@code struct ibv_ece}): a vendor's id and the
 * options it offers, carried in the connection request so that both ends can agree on
 * vendor-specific features. With rdma_cm they travel only on ids whose queue pair the
 * application drives itself ({@link dev.jrdma.cm.ExternalQueuePair#setLocalEce},
 * {@link dev.jrdma.cm.ExternalQueuePair#remoteEce}).
 *
 * @param vendorId the IEEE OUI of the vendor (0 = no ECE)
 * @param options  the vendor's option bits
 */
public record EceParameters(int vendorId, int options) {
    /** No ECE: what a peer that sent none reports. */
    public static final EceParameters NONE = new EceParameters(0, 0);
}
