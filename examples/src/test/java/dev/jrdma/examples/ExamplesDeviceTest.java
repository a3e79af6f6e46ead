// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.Context;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import dev.jrdma.testing.TestDevice;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every example end to end in this JVM: the server on one thread, its client(s) on others, on
 * the test device ({@link TestDevice}) through its IPv4 address, checked by
 * exit code and output. {@link ExampleProcessesDeviceTest} runs main() in separate processes.
 */
@DeviceTest
class ExamplesDeviceTest {
    static final Duration TIMEOUT = Duration.ofSeconds(120);

    static String device;
    static String host;

    @BeforeAll
    static void findTheDevice() {
        device = TestDevice.name();
        RdmaDevice rdma = Rdma.device(device).orElseThrow(() -> new AssertionError("libibverbs does not list "
                + device + ": " + Rdma.devices()));
        try (Context context = rdma.open()) {
            host = context.defaultGid().ipv4().orElseThrow(() -> new AssertionError(device + " has no IPv4 GID"))
                    .getHostAddress();
        }
    }

    static String freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return String.valueOf(socket.getLocalPort());
        }
    }

    /** {@code args} plus the test device and a timeout. */
    static String[] args(String... args) {
        List<String> list = new ArrayList<>(List.of(args));
        list.addAll(List.of("--device", device, "--timeout", "60"));
        return list.toArray(String[]::new);
    }

    /** Runs the server, then (once it listens) the clients; checks every exit code; returns all output. */
    private static String run(Function<String[], Integer> program, String[] serverArgs, String[]... clientArgs)
            throws Exception {
        try (InJvm jvm = new InJvm()) {
            Future<Integer> server = jvm.start(program, serverArgs);
            jvm.awaitLine("server: listening", TIMEOUT);
            List<Future<Integer>> clients = new ArrayList<>();
            for (String[] a : clientArgs) {
                clients.add(jvm.start(program, a));
            }
            for (Future<Integer> client : clients) {
                assertEquals(0, jvm.exitCode(client, TIMEOUT), jvm::output);
            }
            assertEquals(0, jvm.exitCode(server, TIMEOUT), jvm::output);
            return jvm.output();
        }
    }

    static void assertLine(String output, String line) {
        assertTrue(output.lines().anyMatch(line::equals), () -> "no line '" + line + "' in:\n" + output);
    }

    @Test
    @Exercises({"ibv_post_send", "ibv_post_recv", "ibv_poll_cq"})
    void hello() throws Exception {
        String port = freePort();
        // Two programs, HelloServer and HelloClient, so not through run(...) above.
        try (InJvm jvm = new InJvm()) {
            Future<Integer> server = jvm.start(HelloServer::run, args("--port", port));
            jvm.awaitLine("server: listening", TIMEOUT);
            Future<Integer> client = jvm.start(HelloClient::run, args(host, "--port", port));
            assertEquals(0, jvm.exitCode(client, TIMEOUT), jvm::output);
            assertEquals(0, jvm.exitCode(server, TIMEOUT), jvm::output);
            assertLine(jvm.output(), "server: received \"Hello, RDMA!\"");
            assertLine(jvm.output(), "server: sent \"ack: Hello, RDMA!\"");
            assertLine(jvm.output(), "client: received \"ack: Hello, RDMA!\"");
        }
    }

    @Test
    void rdmaWrite() throws Exception {
        String port = freePort();
        String out = run(RdmaWrite::run, args("--port", port), args(host, "--port", port));
        assertLine(out, "server: the client wrote \"" + RdmaWrite.MESSAGE + "\"");
        assertLine(out, "client: told the server");
    }

    @Test
    void rdmaRead() throws Exception {
        String port = freePort();
        String out = run(RdmaRead::run, args("--port", port), args(host, "--port", port));
        assertLine(out, "client: read " + RdmaRead.MESSAGE.length() + " bytes: \"" + RdmaRead.MESSAGE + "\"");
        assertLine(out, "server: the client is done reading");
    }

    @Test
    void atomicCounterWithTwoClients() throws Exception {
        String port = freePort();
        String[] client = args(host, "--port", port, "--increments", "500");
        String out = run(AtomicCounter::run, args("--port", port, "--clients", "2"), client, client);
        assertLine(out, "server: counter = 1000 (expected 1000)");
        assertEquals(2, out.lines().filter(line -> line.startsWith("client: added 1 500 times")).count(), out);
    }

    @Test
    @Exercises({"ibv_create_ah", "ibv_post_send", "ibv_post_recv", "ibv_poll_cq"})
    void udDatagram() throws Exception {
        String port = freePort();
        String out = run(UdDatagram::run, args("--port", port), args(host, "--port", port));
        assertTrue(out.contains("server: received \"Hello, UD!\" (10 bytes after the 40-byte GRH)"), out);
        assertLine(out, "client: received \"ack: Hello, UD!\"");
    }

    @Test
    @Exercises({"ibv_create_ah_from_wc", "ibv_init_ah_from_wc"})
    void udReplyAnswersEachSenderFromItsCompletion() throws Exception {
        String port = freePort();
        String[] client = args(host, "--port", port);
        String out = run(UdReply::run, args("--port", port, "--clients", "2"), client, client);
        assertEquals(2, out.lines().filter(line -> line.startsWith("server: answered \"hello from QP 0x")
                && line.contains(" from " + host + " QP 0x")).count(), out);
        assertEquals(2, out.lines().filter(line -> line.startsWith("client: received \"ack: hello from QP 0x")).count(),
                out);
    }

    @Test
    @Exercises({"ibv_attach_mcast", "ibv_detach_mcast"})
    void udMulticastReachesTheSendersOwnReceiverAndAClient() throws Exception {
        String port = freePort();
        String out = run(UdMulticast::run, args("--port", port, "--clients", "1", "--datagrams", "16"),
                args(host, "--port", port, "--datagrams", "16"));
        assertLine(out, "server: its own receiver got 16 of 16");
        assertLine(out, "client: received 16 of 16 datagrams");
        assertLine(out, "server: every receiver got every datagram");
    }

    @Test
    @Exercises({"rdma_listen", "rdma_resolve_addr", "rdma_resolve_route", "rdma_connect", "rdma_accept",
            "rdma_disconnect"})
    void cmHello() throws Exception {
        String port = freePort();
        String out = run(CmHello::run, args("--port", port), args(host, "--port", port));
        assertLine(out, "server: connect request with private data \"client hello\"");
        assertLine(out, "server: received \"" + CmHello.MESSAGE + "\"");
        assertLine(out, "server: the client disconnected");
        assertTrue(out.contains("the server's private data: \"welcome\""), out);
    }

    /**
     * The multi-client server: 16 connections from one client process (virtual threads, one
     * event channel), each 3 round trips of 4 KiB whose every byte both sides check, served on
     * 16 virtual threads; the device-test JVM has two carriers, so waits that held them would stall.
     */
    @Test
    @Exercises({"rdma_listen", "rdma_accept", "rdma_connect", "rdma_disconnect", "ibv_req_notify_cq",
            "ibv_get_cq_event"})
    void cmEchoServesSixteenConnectionsOnVirtualThreads() throws Exception {
        String port = freePort();
        String out = run(CmEcho::run, args("--port", port, "--connections", "16"),
                args(host, "--port", port, "--connections", "16", "--rounds", "3"));
        assertLine(out, "server: served 16 connections, 48 messages echoed, every byte checked");
        assertTrue(out.lines().anyMatch(line -> line.startsWith("client: 16 connections, 48 round trips of 4096 bytes"
                + " verified in ")), out);
    }

    @Test
    void aClientWithoutServerFailsWithExitCode1() throws Exception {
        String port = freePort();
        try (InJvm jvm = new InJvm()) {
            // The client retries while nobody listens, for its --timeout, then gives up.
            assertEquals(1, jvm.exitCode(jvm.start(HelloClient::run,
                    host, "--port", port, "--device", device, "--timeout", "3"),
                    TIMEOUT));
            assertTrue(jvm.output().startsWith("error: java.net.SocketTimeoutException: no server listening on"),
                    jvm::output);
        }
        String cmPort = freePort();
        try (InJvm jvm = new InJvm()) {
            assertEquals(1, jvm.exitCode(jvm.start(CmHello::run, args(host, "--port", cmPort)), TIMEOUT));
            assertTrue(jvm.output().contains("REJECTED"), jvm::output);
        }
    }
}
