// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * A feature a device offers only on some queue pair types, each reported in the extended
 * device query as a {@code supported_qpts} mask ({@code struct ibv_device_attr_ex}); ask with
 * {@link Context#supportsOffload}.
 */
public enum QueuePairOffload {
    /** TCP segmentation offload ({@code tso_caps}). */
    TSO,
    /** Receive-side scaling over work queues ({@code rss_caps}). */
    RSS,
    /** Per-QP rate limiting ({@code packet_pacing_caps}, {@code ibv_modify_qp_rate_limit}). */
    PACKET_PACING
}
