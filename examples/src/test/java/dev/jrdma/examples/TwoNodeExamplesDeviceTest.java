// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.AgentProcess;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every example across a wire (scripts/softroce --nodes 2): its server on node 1 (10.200.1.1) in a
 * thread of this JVM ({@link InJvm}), its client(s) on node 2 in the testbed's program agent
 * ({@link TwoNodes#agent}), one JVM there for every case, asked over the control link. In-process
 * because a JVM start under the VM's CPU emulation costs 15-35 s: as a fresh JVM per server and
 * client the six cases took 266 s in CI, nearly all of it start-up. {@link ExampleProcessesDeviceTest}
 * still runs main() as separate processes. The examples' own checks (acknowledgements, the
 * counter's total, the written and read text) decide their exit codes, which must be 0 on both
 * nodes.
 */
@TwoNodeTest
class TwoNodeExamplesDeviceTest {
    private static final String EXAMPLES = "dev.jrdma.examples.";
    private static final Duration TIMEOUT = Duration.ofSeconds(300);
    private static final Map<String, Function<String[], Integer>> SERVERS = Map.of(
            "HelloServer", HelloServer::run, "RdmaWrite", RdmaWrite::run, "RdmaRead", RdmaRead::run,
            "AtomicCounter", AtomicCounter::run, "UdDatagram", UdDatagram::run, "CmHello", CmHello::run,
            "UdReply", UdReply::run, "UdMulticast", UdMulticast::run, "CmEcho", CmEcho::run);
    private static int port = 7600;
    private static AgentProcess node2;

    @BeforeAll
    static void startTheAgentOnNode2() throws Exception {
        long start = System.nanoTime();
        node2 = TwoNodes.agent(TIMEOUT);
        System.out.printf("two-node: program agent on node 2 serving after %.1f s%n", (System.nanoTime() - start) / 1e9);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "hello, HelloServer, HelloClient, 1, ''",
        "write, RdmaWrite, RdmaWrite, 1, ''",
        "read, RdmaRead, RdmaRead, 1, ''",
        "atomic, AtomicCounter, AtomicCounter, 2, --clients 2",
        "ud, UdDatagram, UdDatagram, 1, ''",
        "cm, CmHello, CmHello, 1, ''",
        "udreply, UdReply, UdReply, 1, --clients 1",
        // The group's datagrams reach the sender's own receiver on node 1 and the client's on node 2.
        "multicast, UdMulticast, UdMulticast, 1, --clients 1",
        // Issue #38 across the wire, kept short: 16 rdma_cm connections on virtual threads per side,
        // 3 verified round trips of 4 KiB each (the client's options come after the common ones).
        "echo, CmEcho, CmEcho, 1, --connections 16",
    })
    void serverOnNode1ClientOnNode2(String name, String server, String client, int clients, String serverArgs)
            throws Exception {
        int p = port++;
        if (name.equals("cm")) {
            // rdma_cm must resolve node 1's address over the wire: forget what ARP learned before.
            TwoNodes.run(60, "ip", "neigh", "flush", "dev", TwoNodes.wireInterface());
        }
        List<String> common = List.of("--port", Integer.toString(p), "--timeout", "120", "--device", TwoNodes.DEVICE);
        List<String> s = new ArrayList<>(common);
        if (!serverArgs.isBlank()) {
            s.addAll(List.of(serverArgs.split(" ")));
        }
        List<String> c = new ArrayList<>(List.of(TwoNodes.NODE1));
        c.addAll(common);
        if (name.equals("echo")) {
            c.addAll(List.of("--connections", "16", "--rounds", "3"));
        }
        List<AgentClient.Result> results = new ArrayList<>();
        int serverCode;
        String report;
        try (InJvm node1 = new InJvm()) {
            Future<Integer> sp = node1.start(SERVERS.get(server), s.toArray(String[]::new));
            node1.awaitLine("server: listening", TIMEOUT);
            // Threads of their own: the two atomic clients must run at once, whatever the common pool's size.
            List<CompletableFuture<AgentClient.Result>> cps = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                cps.add(CompletableFuture.supplyAsync(() -> node2.run(TIMEOUT, EXAMPLES + client, c),
                        r -> Thread.ofPlatform().name(name + " client").start(r)));
            }
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < clients; i++) {
                AgentClient.Result r = await(cps.get(i), "client " + (i + 1) + " on node 2", node1, all);
                all.append("--- client ").append(i + 1).append(" on node 2\n").append(r.all());
                results.add(r);
            }
            serverCode = node1.exitCode(sp, TIMEOUT);
            report = "--- server on node 1, exit " + serverCode + "\n" + node1.output() + all;
        }
        System.out.println(report);
        for (AgentClient.Result r : results) {
            assertEquals(0, r.code(), report);
        }
        assertEquals(0, serverCode, report);
        if (name.equals("cm")) {
            String neigh = TwoNodes.run(60, "ip", "neigh", "show", TwoNodes.NODE1).out();
            assertTrue(neigh.contains("lladdr 52:54:00:12:00:01"), "node 2 learned node 1's MAC by ARP: " + neigh);
        }
    }

    /** A client's result; a failure to get one (timeout, agent gone) comes with everything printed so far. */
    private static AgentClient.Result await(CompletableFuture<AgentClient.Result> client, String who, InJvm node1,
                                            CharSequence clientsSoFar) throws InterruptedException {
        try {
            // The agent itself answers within TIMEOUT plus AgentClient's margin; this bound only backs it up.
            return client.get(TIMEOUT.toSeconds() + 60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new AssertionError(who + ": " + cause.getMessage() + "\n--- server on node 1 so far\n"
                    + node1.output() + clientsSoFar, cause);
        }
    }
}
