// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue #38's echo service, 64 connections on virtual threads on each side with one rdma_cm
 * event channel per side, the waits for completions in {@code take} with the default strategy
 * ({@link ManyConnections}): every client's round trips verified byte by byte, the vanishing
 * client reported as one bounded failure by the server, the rejected client told so, and no
 * stall. The device-test JVM has two carriers (scripts/device-tests), so waits that held their
 * carriers would stall it at once. Kept small for the emulator: 3 rounds of 256 bytes.
 * {@code research/many-connections/soak} runs the same in a loop.
 */
@DeviceTest
class ManyConnectionsDeviceTest {
    static final int CONNECTIONS = 64;

    @Test
    @Exercises({"rdma_listen", "rdma_accept", "rdma_reject", "rdma_connect", "rdma_disconnect", "rdma_get_cm_event",
        "ibv_poll_cq"})
    void sixtyFourEchoClientsOnVirtualThreadsWithAVanishedAndARejectedOne() throws Exception {
        ManyConnections.Settings settings = new ManyConnections.Settings(CONNECTIONS, 3, 256, Duration.ofSeconds(30),
                true, WaitStrategy.threadAware());
        ManyConnections.Report report = ManyConnections.run(TestDevices.ipv4Address(), settings);
        System.out.println("ManyConnectionsDeviceTest: " + report);
        assertFalse(report.stalled(), report::toString);
        assertEquals(Map.of(), report.clientFailures(), report::toString);
        assertEquals(CONNECTIONS, report.clientsPassed(), report::toString);
        assertEquals(CONNECTIONS, report.serverPassed(), report::toString);
        assertEquals(1, report.serverFailures().size(), report::toString);
        String vanished = report.serverFailures().get(CONNECTIONS);
        assertTrue(vanished != null && (vanished.contains("WorkCompletionException")
                || vanished.contains("RdmaTimeoutException") || vanished.contains("RdmaException")),
                "the vanished client is one bounded failure: " + report);
        assertTrue(report.rejected(), report::toString);
    }
}
