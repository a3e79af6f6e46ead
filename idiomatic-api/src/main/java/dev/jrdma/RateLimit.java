// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_qp_rate_limit_attr;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.internal.Unsupported;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A send rate limit for a queue pair ({@code struct ibv_qp_rate_limit_attr}), enforced by the
 * device's packet pacing ({@link DeviceAttributes#packetPacing()} tells its range). Devices
 * without packet pacing (rxe) refuse it with {@link OperationNotSupportedException}.
 *
 * @param kilobitsPerSecond the rate, 0 for unlimited
 * @param maxBurstBytes     the largest burst, 0 for the device's default
 * @param typicalPacketSize the typical packet size in bytes, 0 for the device's default
 */
public record RateLimit(int kilobitsPerSecond, int maxBurstBytes, int typicalPacketSize) {
    /**
     * Applies this limit to {@code qp} (RTS state, on the devices that pace).
     *
     * @param qp the queue pair
     */
    @Reaches({"ibv_modify_qp_rate_limit"})
    public void applyTo(QueuePair qp) {
        try (Arena arena = Arena.ofConfined(); var _ = NativeResource.hold(qp)) {
            MemorySegment attr = arena.allocate(ibv_qp_rate_limit_attr.layout());
            ibv_qp_rate_limit_attr.rate_limit(attr, kilobitsPerSecond);
            ibv_qp_rate_limit_attr.max_burst_sz(attr, maxBurstBytes);
            ibv_qp_rate_limit_attr.typical_pkt_sz(attr, (short) typicalPacketSize);
            int rc = ExtensionVerbs.ibv_modify_qp_rate_limit(qp.handle(), attr);
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_MODIFY_QP_RATE_LIMIT, qp, rc,
                        Unsupported.detail(qp.protectionDomain().context(), rc, "QP rate limits (packet pacing)", this.toString()));
            }
        }
    }
}
