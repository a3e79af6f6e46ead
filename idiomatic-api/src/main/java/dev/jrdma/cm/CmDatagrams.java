// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.NativeResource;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_cm_id;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.CoreAccess;
import java.time.Duration;

/**
 * The datagram side of rdma_cm ids (port space UDP, UD queue pair): SIDR, where a connect
 * resolves a peer instead of establishing a connection; kept apart from {@link CmId}, which
 * holds the connected path.
 */
final class CmDatagrams {
    private static final CoreAccess CORE = CoreAccess.get();

    private CmDatagrams() {}

    /** Whether {@code id} is a datagram id (port space UDP, UD queue pair). */
    static boolean isDatagram(CmId id) {
        try (var _ = CORE.hold(id.lifetime)) {
            return rdma_cm_id.qp_type(id.rawHandle()) == rdma_h.IBV_QPT_UD();
        }
    }

    /** {@link CmId#connectDatagram}: rdma_connect, then the ESTABLISHED event that carries the peer. */
    static DatagramPeer connect(CmId id, byte[] privateData, Duration timeout) {
        if (!isDatagram(id)) {
            throw new IllegalStateException(id + " is not a datagram id: use connect()");
        }
        id.call(Verb.RDMA_CONNECT, (arena, errno) ->
                RdmaCmVerbs.rdma_connect(errno, id.rawHandle(), CmParams.connParam(arena, privateData, null)));
        return id.expect(CmEventType.ESTABLISHED, timeout, Verb.RDMA_CONNECT).peer();
    }
}
