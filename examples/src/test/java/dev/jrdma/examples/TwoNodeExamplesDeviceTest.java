// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every example across a wire (scripts/softroce --nodes 2): its server on node 1 (10.200.1.1),
 * its client(s) on node 2 through scripts/node, each a java process started the way a user
 * would, by its command line, from the built jars. The examples' own checks (acknowledgements, the counter's total,
 * the written and read text) decide their exit status.
 */
@TwoNodeTest
class TwoNodeExamplesDeviceTest {
    private static final String EXAMPLES = "dev.jrdma.examples.";
    private static final long TIMEOUT_S = 300;
    private static int port = 7600;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "hello, HelloServer, HelloClient, 1, ''",
        "write, RdmaWrite, RdmaWrite, 1, ''",
        "read, RdmaRead, RdmaRead, 1, ''",
        "atomic, AtomicCounter, AtomicCounter, 2, --clients 2",
        "ud, UdDatagram, UdDatagram, 1, ''",
        "cm, CmHello, CmHello, 1, ''",
    })
    void serverOnNode1ClientOnNode2(String name, String server, String client, int clients, String serverArgs)
            throws Exception {
        int p = port++;
        if (name.equals("cm")) {
            // rdma_cm must resolve node 1's address over the wire: forget what ARP learned before.
            TwoNodes.run(60, "ip", "neigh", "flush", "dev", TwoNodes.wireInterface());
        }
        List<String> common = List.of("--port", Integer.toString(p), "--timeout", "120", "--device", TwoNodes.DEVICE);
        List<String> s = TwoNodes.program(EXAMPLES + server);
        s.addAll(common);
        if (!serverArgs.isBlank()) {
            s.addAll(List.of(serverArgs.split(" ")));
        }
        Path serverLog = Files.createTempFile(name + "-server", ".log");
        Process sp = new ProcessBuilder(s).redirectErrorStream(true).redirectOutput(serverLog.toFile()).start();
        List<Process> cps = new ArrayList<>();
        List<Path> clientLogs = new ArrayList<>();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (!Files.readString(serverLog).contains("server: listening")) {
                assertTrue(sp.isAlive() && System.nanoTime() < deadline,
                        "the server did not listen:\n" + Files.readString(serverLog));
                Thread.sleep(200);
            }
            for (int i = 0; i < clients; i++) {
                List<String> c = TwoNodes.program(EXAMPLES + client, TwoNodes.NODE1);
                c.addAll(common);
                Path log = Files.createTempFile(name + "-client", ".log");
                clientLogs.add(log);
                cps.add(TwoNodes.start(c, log));
            }
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < clients; i++) {
                boolean ended = cps.get(i).waitFor(TIMEOUT_S, TimeUnit.SECONDS);
                String out = Files.readString(clientLogs.get(i));
                all.append("--- client ").append(i + 1).append(" on node 2\n").append(out);
                assertTrue(ended, "client " + (i + 1) + " did not end:\n" + out);
            }
            assertTrue(sp.waitFor(TIMEOUT_S, TimeUnit.SECONDS), "the server did not end:\n" + Files.readString(serverLog));
            String report = "--- server on node 1\n" + Files.readString(serverLog) + all;
            System.out.println(report);
            for (Process cp : cps) {
                assertEquals(0, cp.exitValue(), report);
            }
            assertEquals(0, sp.exitValue(), report);
            if (name.equals("cm")) {
                String neigh = TwoNodes.run(60, "ip", "neigh", "show", TwoNodes.NODE1).out();
                assertTrue(neigh.contains("lladdr 52:54:00:12:00:01"), "node 2 learned node 1's MAC by ARP: " + neigh);
            }
        } finally {
            sp.destroyForcibly();
            cps.forEach(Process::destroyForcibly);
            Files.deleteIfExists(serverLog);
            for (Path log : clientLogs) {
                Files.deleteIfExists(log);
            }
        }
    }
}
