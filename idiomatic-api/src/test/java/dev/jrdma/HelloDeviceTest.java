package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client and a server, each with its own context on the test device, that exchange
 * endpoints over TCP and then talk over RC: "Hello, RDMA!" answered by an acknowledgement.
 */
@DeviceTest
class HelloDeviceTest {
    private static final String HELLO = "Hello, RDMA!";
    private static final String ACK = "ack: " + HELLO;

    /** One side: connect through the exchange, receive or send first, then the other way round. */
    private static String side(boolean server, ServerSocket listener, int port) throws Exception {
        try (Context context = TestDevices.device().open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            Endpoint local = qp.localEndpoint(TestDevices.PORT, TestDevices.gid(context).index());
            ReceiveRequest recv = new ReceiveRequest().wrId(1).sge(buffer, 2048, 2048);
            // Post the receive before the peer can learn our endpoint: a SEND never finds us unready.
            qp.toInit(TestDevices.PORT);
            qp.post(recv);
            Endpoint remote = server
                    ? EndpointExchange.accept(listener, local, TestDevices.TIMEOUT)
                    : EndpointExchange.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), local,
                            TestDevices.TIMEOUT);
            qp.toRtr(remote);
            qp.toRts();
            WorkCompletion wc = new WorkCompletion();
            String received;
            if (server) {
                received = receive(cq, wc, buffer);
                send(qp, cq, wc, buffer, ACK);
            } else {
                send(qp, cq, wc, buffer, HELLO);
                received = receive(cq, wc, buffer);
            }
            return received;
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

    @Test
    void helloAndAcknowledgement() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return side(true, listener, 0);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            String answer = side(false, null, listener.getLocalPort());
            assertEquals(HELLO, server.get(TestDevices.TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
            assertEquals(ACK, answer);
        }
    }
}
