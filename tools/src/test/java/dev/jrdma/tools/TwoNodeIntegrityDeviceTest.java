// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.ConnectionOptions;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * 64 MiB across the wire on one RC queue pair, SEND and RDMA WRITE WITH IMMEDIATE in mixed sizes,
 * every message verified on the far side ({@link WireIntegrity}): the sender on node 2, the
 * receiver in this JVM on node 1.
 */
@TwoNodeTest
class TwoNodeIntegrityDeviceTest {
    static final long BYTES = 64L * 1024 * 1024;

    @Test
    void sixtyFourMibArriveIntactInOrder() throws Exception {
        long seed = System.nanoTime();
        int port = 7700;
        Path log = Files.createTempFile("integrity-send", ".log");
        try (ServerSocket listener = new ServerSocket(port)) {
            Process sender = TwoNodes.start(TwoNodes.java(WireIntegrity.class.getName(), "send", TwoNodes.NODE1,
                    Integer.toString(port), Long.toString(seed), Long.toString(BYTES)), log);
            try {
                WireIntegrity.Summary received = WireIntegrity.receive(listener, seed, BYTES, ConnectionOptions.DEFAULTS);
                assertTrue(sender.waitFor(120, TimeUnit.SECONDS), "the sender did not end:\n" + Files.readString(log));
                String sent = Files.readString(log);
                System.out.println("seed " + seed + "\nreceiver on node 1: " + received + "\nsender on node 2: " + sent);
                assertEquals(0, sender.exitValue(), sent);
                assertTrue(received.bytes() >= BYTES, received.toString());
                assertTrue(received.sends() > 0 && received.writes() > 0, received.toString());
                assertTrue(sent.contains("integrity: " + received.messages() + " messages ("), sent);
            } finally {
                sender.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
