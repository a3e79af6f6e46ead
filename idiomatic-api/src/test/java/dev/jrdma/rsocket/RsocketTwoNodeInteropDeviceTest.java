// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.rsocket.RsocketTools.Where;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rsocket interop across the two-node wire ({@code scripts/softroce --nodes 2}): jrdma on
 * node 1 in this JVM, rdma-core's {@code rstream} and {@code riostream} on node 2, both roles
 * each, every byte checked on both sides ({@link RsocketTools}). Fewer iterations than on one
 * node: a round trip over the emulated wire costs ~0.4 ms of RDMA latency and much more of
 * emulated CPU on the nodes' one vCPU each.
 */
@TwoNodeTest
@Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketTwoNodeInteropDeviceTest {
    private static final int ITERATIONS = 10;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Which tool in which role on node 2, against jrdma in the other on node 1. */
    enum Pairing { RSTREAM_SERVER, RSTREAM_CLIENT, RIOSTREAM_SERVER, RIOSTREAM_CLIENT }

    @ParameterizedTest
    @EnumSource(Pairing.class)
    void acrossTheWire(Pairing pairing) throws Exception {
        InetAddress node1 = InetAddress.getByName(TwoNodes.NODE1);
        InetAddress node2 = InetAddress.getByName(TwoNodes.NODE2);
        switch (pairing) {
            case RSTREAM_SERVER -> RsocketTools.rstreamServer(Where.NODE2, node2, ITERATIONS, TIMEOUT);
            case RSTREAM_CLIENT -> RsocketTools.rstreamClient(Where.NODE2, node1, ITERATIONS, TIMEOUT);
            case RIOSTREAM_SERVER -> RsocketTools.riostreamServer(Where.NODE2, node2, ITERATIONS, TIMEOUT);
            case RIOSTREAM_CLIENT -> RsocketTools.riostreamClient(Where.NODE2, node1, ITERATIONS, TIMEOUT);
        }
    }
}
