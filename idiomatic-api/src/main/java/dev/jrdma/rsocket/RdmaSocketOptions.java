// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import java.net.SocketOption;

/**
 * The RDMA-specific options of an rsocket ({@code rsetsockopt(SOL_RDMA, ...)}), besides the
 * standard ones rsockets take ({@link java.net.StandardSocketOptions#SO_RCVBUF},
 * {@code SO_SNDBUF}, {@code TCP_NODELAY}, {@code SO_KEEPALIVE}, {@code SO_REUSEADDR},
 * {@code SO_LINGER}). They size the queue pair rsockets creates when the connection is made,
 * so they must be set before {@code connect} (or on the server socket before {@code accept},
 * whose accepted sockets inherit them); later, the set fails naming the option.
 */
public final class RdmaSocketOptions {
    private RdmaSocketOptions() {}

    /** rsockets' ceiling for queue sizes (RS_QP_MAX_SIZE); it clamps larger values silently, jrdma refuses them. */
    public static final int MAX_QUEUE_SIZE = 0xFFFE;

    /** Send queue depth ({@code RDMA_SQSIZE}), 1..{@value #MAX_QUEUE_SIZE}. */
    public static final SocketOption<Integer> SQ_SIZE = new Option("RDMA_SQSIZE");
    /** Receive queue depth ({@code RDMA_RQSIZE}), 1..{@value #MAX_QUEUE_SIZE}. */
    public static final SocketOption<Integer> RQ_SIZE = new Option("RDMA_RQSIZE");
    /** Largest send rsockets posts inline ({@code RDMA_INLINE}), 0..{@value #MAX_QUEUE_SIZE} bytes. */
    public static final SocketOption<Integer> INLINE_SIZE = new Option("RDMA_INLINE");
    /**
     * How many of the peer's {@code riomap} regions this side can learn of
     * ({@code RDMA_IOMAPSIZE}), 0..{@value #MAX_QUEUE_SIZE}; 0 (the default) none. The side
     * that calls {@code iowrite} needs it; the side that calls {@code iomap} may map as many
     * regions as the peer's value. Set it on both sides before connect, as riostream does.
     */
    public static final SocketOption<Integer> IOMAP_SIZE = new Option("RDMA_IOMAPSIZE");

    private record Option(String name) implements SocketOption<Integer> {
        @Override
        public Class<Integer> type() {
            return Integer.class;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
