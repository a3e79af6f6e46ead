// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.AgentProcess;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue #38's echo service across the wire (scripts/softroce --nodes 2), smaller than the
 * one-node {@link ManyConnectionsDeviceTest}: the server on node 1 in this JVM, serving every
 * connection on a virtual thread of its own; on node 2, in the testbed's program agent
 * ({@link ManyConnectionsClients}), 16 echo clients on virtual threads sharing one event channel,
 * plus one that vanishes after its first round and one that is rejected. Both sides check every
 * byte: the server each message against the client's pattern, the clients each echo. 3 round
 * trips of 256 bytes per client, for the emulator: 85 s in the testbed, 60 s of it the server's
 * bounded wait on the vanished client's connection (the clients were done after 16 s).
 */
@TwoNodeTest
class TwoNodeManyConnectionsDeviceTest {
    private static final int CLIENTS = 16;
    private static final int PORT = 7700;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void sixteenEchoClientsOnNode2WithAVanishedAndARejectedOne() throws Exception {
        AgentProcess node2 = TwoNodes.agent(Duration.ofSeconds(300));
        ManyConnections.Settings settings = new ManyConnections.Settings(CLIENTS, 3, 256, TIMEOUT, true,
                WaitStrategy.threadAware());
        Inet4Address node1 = (Inet4Address) InetAddress.getByName(TwoNodes.NODE1);
        CountDownLatch listening = new CountDownLatch(1);
        CompletableFuture<ManyConnections.Report> server = CompletableFuture.supplyAsync(() -> {
            try {
                return ManyConnections.run(node1, PORT, settings, ManyConnections.Side.SERVER, listening::countDown);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofPlatform().name("many-connections server").start(r));
        assertTrue(listening.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the server on node 1 listens");
        AgentClient.Result clients = node2.run(settings.bound().plusSeconds(60), ManyConnectionsClients.class.getName(),
                List.of(TwoNodes.NODE1, Integer.toString(PORT), Integer.toString(CLIENTS), "3", "256",
                        Long.toString(TIMEOUT.toSeconds())));
        ManyConnections.Report served = server.get(settings.bound().toSeconds() + 60, TimeUnit.SECONDS);
        String report = "--- server on node 1: " + served + "\n--- clients on node 2, exit " + clients.code() + "\n"
                + clients.all();
        System.out.println("TwoNodeManyConnectionsDeviceTest:\n" + report);
        assertEquals(0, clients.code(), report);
        assertTrue(clients.all().contains("clients passed " + CLIENTS + ","), report);
        assertFalse(served.stalled(), report);
        assertEquals(CLIENTS, served.serverPassed(), report);
        assertEquals(1, served.serverFailures().size(), report);
        String vanished = served.serverFailures().get(CLIENTS);
        assertTrue(vanished != null && (vanished.contains("WorkCompletionException")
                || vanished.contains("RdmaTimeoutException") || vanished.contains("RdmaException")),
                "the vanished client is one bounded failure: " + report);
    }
}
