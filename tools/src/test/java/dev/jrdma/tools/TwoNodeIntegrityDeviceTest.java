// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.ConnectionOptions;
import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * 64 MiB across the wire on one RC queue pair, SEND and RDMA WRITE WITH IMMEDIATE in mixed sizes,
 * every message verified on the far side ({@link WireIntegrity}): the sender on node 2, run by the
 * testbed's program agent there ({@link PeerOnNode2}), the receiver in this JVM on node 1.
 */
@TwoNodeTest
class TwoNodeIntegrityDeviceTest {
    static final long BYTES = 64L * 1024 * 1024;
    /**
     * How long the agent runs the sender before it reports it as hung: 64 MiB at 0.1 MiB/s, below
     * the slowest transfer seen (0.26 MiB/s under 5 % loss). The sender ends by itself sooner when
     * this side fails: each of its waits ends after WireIntegrity's STEP (120 s).
     */
    private static final Duration SENDER_LIMIT = Duration.ofSeconds(600);
    /** How long the sender may take to end once the receiver is done (or has failed). */
    private static final Duration SENDER_END = Duration.ofSeconds(120);

    @Test
    void sixtyFourMibArriveIntactInOrder() throws Exception {
        long seed = System.nanoTime();
        int port = 7700;
        try (ServerSocket listener = new ServerSocket(port)) {
            PeerOnNode2 sender = PeerOnNode2.start(SENDER_LIMIT, WireIntegrity.class, "send", TwoNodes.NODE1,
                    Integer.toString(port), Long.toString(seed), Long.toString(BYTES));
            WireIntegrity.Summary received = sender.alongside(SENDER_END,
                    () -> WireIntegrity.receive(listener, seed, BYTES, ConnectionOptions.DEFAULTS));
            AgentClient.Result sent = sender.await(SENDER_END);
            System.out.println("seed " + seed + "\nreceiver on node 1: " + received + "\nsender on node 2: "
                    + sent.all());
            assertEquals(0, sent.code(), sent.all());
            assertTrue(received.bytes() >= BYTES, received.toString());
            assertTrue(received.sends() > 0 && received.writes() > 0, received.toString());
            assertTrue(sent.out().contains("integrity: " + received.messages() + " messages ("), sent.all());
        }
    }
}
