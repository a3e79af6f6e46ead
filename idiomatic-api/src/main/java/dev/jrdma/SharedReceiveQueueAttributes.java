// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * What a shared receive queue is now ({@code struct ibv_srq_attr}), from
 * {@link SharedReceiveQueue#query()}.
 *
 * @param maxWorkRequests the outstanding receives it holds (after any resize)
 * @param maxSges         the SGEs per receive
 * @param limit           the armed limit: when a receive leaves fewer posted receives than
 *                        this, the device raises {@link AsyncEventType#SRQ_LIMIT_REACHED} once
 *                        and sets it back to 0; 0 when not armed
 */
public record SharedReceiveQueueAttributes(int maxWorkRequests, int maxSges, int limit) {
}
