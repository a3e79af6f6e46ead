// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.ConnectionOptions;
import dev.jrdma.QueuePair;
import dev.jrdma.bindings.generated.rdma_conn_param;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** The argument structs and checks rdma_cm's connection calls share. */
final class CmParams {
    private CmParams() {}

    static final int MAX_PRIVATE_DATA = 56;

    static void checkPrivateData(byte[] privateData) {
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data is limited to " + MAX_PRIVATE_DATA + " bytes here, not "
                    + privateData.length);
        }
    }

    /** The private data as rdma_reject takes it: NULL when empty. */
    static MemorySegment privateData(Arena arena, byte[] privateData) {
        checkPrivateData(privateData);
        return privateData.length == 0 ? MemorySegment.NULL : arena.allocateFrom(JAVA_BYTE, privateData);
    }

    /**
     * A {@code struct rdma_conn_param}; {@code qp} is the application's own queue pair, whose
     * number rdma_cm must be told when the id has none of its own, or null.
     */
    static MemorySegment connParam(Arena arena, byte[] privateData, QueuePair qp) {
        checkPrivateData(privateData);
        MemorySegment param = arena.allocate(rdma_conn_param.layout());
        if (privateData.length > 0) {
            rdma_conn_param.private_data(param, arena.allocateFrom(JAVA_BYTE, privateData));
            rdma_conn_param.private_data_len(param, (byte) privateData.length);
        }
        // One outstanding RDMA READ/atomic each way and full retries, as ConnectionOptions.DEFAULTS.
        rdma_conn_param.responder_resources(param, (byte) 1);
        rdma_conn_param.initiator_depth(param, (byte) 1);
        rdma_conn_param.retry_count(param, (byte) 7);
        rdma_conn_param.rnr_retry_count(param, (byte) 7);
        if (qp != null) {
            rdma_conn_param.qp_num(param, qp.qpNumber());
            rdma_conn_param.srq(param, (byte) (qp.sharedReceiveQueue().isPresent() ? 1 : 0));
        }
        return param;
    }
}
