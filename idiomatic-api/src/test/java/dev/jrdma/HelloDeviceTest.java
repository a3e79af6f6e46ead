// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client and a server, each with its own context on the test device, that connect their
 * queue pairs through {@link EndpointExchange} and then talk: "Hello, RDMA!" answered by an
 * acknowledgement. Over UC a SEND that reaches a queue pair not yet in RTR is lost for good (no
 * retransmission), so the UC run fails unless the exchange returns only once both queue pairs
 * are ready.
 */
@DeviceTest
class HelloDeviceTest {
    private static final String HELLO = "Hello, RDMA!";
    private static final String ACK = "ack: " + HELLO;

    /** One side: post the receive, connect through the exchange, receive or send first, then the other way round. */
    private static String side(QueuePairType type, boolean server, ServerSocket listener, int port) throws Exception {
        try (Context context = TestDevices.device().open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(type).completionQueue(cq).build();
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            qp.toInit();
            qp.post(new ReceiveRequest().wrId(1).sge(buffer, 2048, 2048));
            Endpoint remote = server
                    ? EndpointExchange.accept(listener, qp, TestDevices.TIMEOUT)
                    : EndpointExchange.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), qp,
                            TestDevices.TIMEOUT);
            assertEquals(QueuePairState.RTS, qp.state());
            assertTrue(remote.qpn() != qp.qpNumber(), "two distinct queue pairs");
            WorkCompletion wc = new WorkCompletion();
            if (server) {
                String received = receive(cq, wc, buffer);
                send(qp, cq, wc, buffer, ACK);
                return received;
            }
            send(qp, cq, wc, buffer, HELLO);
            return receive(cq, wc, buffer);
        }
    }

    private static void send(QueuePair qp, CompletionQueue cq, WorkCompletion wc, MemoryRegion buffer, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.segment().copyFrom(MemorySegment.ofArray(bytes));
        qp.post(new SendRequest().wrId(2).sge(buffer, 0, bytes.length));
        assertEquals(2, cq.take(wc, TestDevices.TIMEOUT).checkSuccess().wrId());
    }

    private static String receive(CompletionQueue cq, WorkCompletion wc, MemoryRegion buffer) {
        cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
        assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
        return new String(buffer.segment().asSlice(2048, wc.byteLength()).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(value = QueuePairType.class, names = {"RC", "UC"})
    void helloAndAcknowledgement(QueuePairType type) throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return side(type, true, listener, 0);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            String answer = side(type, false, null, listener.getLocalPort());
            assertEquals(HELLO, server.get(TestDevices.TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
            assertEquals(ACK, answer);
        }
    }

    /** A peer that sends its endpoint but closes before it is ready: connect fails with a message, not a hang. */
    @Test
    void peerClosingBeforeReadyIsAnError() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Context context = TestDevices.device().open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            Endpoint local = qp.localEndpoint();
            // A stand-in peer: answers with a plausible endpoint of its own, then hangs up.
            CompletableFuture<Endpoint> fake = CompletableFuture.supplyAsync(() -> {
                try (Socket socket = listener.accept()) {
                    byte[] theirs = new byte[Endpoint.BYTES];
                    new DataInputStream(socket.getInputStream()).readFully(theirs);
                    Endpoint peer = new Endpoint(0xabcde, 1, local.lid(), local.gid(), local.mtu());
                    socket.getOutputStream().write(peer.toBytes());
                    return Endpoint.fromBytes(theirs);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            IOException e = assertThrows(IOException.class, () -> EndpointExchange.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), qp,
                    TestDevices.TIMEOUT));
            assertTrue(e.getMessage().contains("closed the connection before its queue pair was ready"), e.getMessage());
            assertEquals(local, fake.get(TestDevices.TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        }
    }
}
