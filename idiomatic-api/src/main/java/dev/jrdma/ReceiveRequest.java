// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_recv_wr;

/**
 * A receive work request ({@code struct ibv_recv_wr}) in native memory: build it once, post it
 * with {@link QueuePair#post(ReceiveRequest)}, change the wr_id or SGEs and post it again,
 * without allocating. Not thread-safe.
 */
public final class ReceiveRequest extends WorkRequest<ReceiveRequest> {
    private static final long WR_SIZE = ibv_recv_wr.layout().byteSize();

    /** The num_sge last written to the native struct (-1: never), so a re-post writes nothing. */
    private int numSge = -1;

    /** A request with room for one SGE. */
    public ReceiveRequest() {
        this(1);
    }

    /**
     * A request with room for {@code maxSges} scatter/gather entries.
     *
     * @param maxSges at least 1
     */
    public ReceiveRequest(int maxSges) {
        super(WR_SIZE, maxSges);
    }

    @Override
    void changed() {
        // num_sge is compared at each post (prepare), nothing else depends on the SGEs.
    }

    @Override
    String describe() {
        return "receive request wr_id " + wrId();
    }

    void prepare(ProtectionDomain pd) {
        for (ReceiveRequest r = this; r != null; r = r.next) {
            if (!r.sges.usableIn(pd)) {
                r.sges.check(pd, r.wrId());
            }
            int n = r.sges.count();
            if (n != r.numSge) {
                ibv_recv_wr.num_sge(r.wr, n);
                r.numSge = n;
            }
        }
    }
}
