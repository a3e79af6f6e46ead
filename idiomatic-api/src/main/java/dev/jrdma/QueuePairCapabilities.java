// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * The queue sizes a queue pair was created with ({@code struct ibv_qp_cap}), as the provider
 * granted them: they may be larger than requested.
 *
 * @param maxSendWorkRequests    outstanding send work requests
 * @param maxReceiveWorkRequests outstanding receive work requests
 * @param maxSendSges            scatter/gather entries per send work request
 * @param maxReceiveSges         scatter/gather entries per receive work request
 * @param maxInlineData          bytes a send work request may carry inline
 */
public record QueuePairCapabilities(int maxSendWorkRequests, int maxReceiveWorkRequests, int maxSendSges,
                                    int maxReceiveSges, int maxInlineData) {
}
