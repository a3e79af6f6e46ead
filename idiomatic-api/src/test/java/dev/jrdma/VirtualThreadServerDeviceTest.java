// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.testing.DeviceTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The guide's virtual-thread server (docs/guide/applications.md): one virtual thread per
 * client, each sleeping on its own completion channel, run against a few clients on the
 * test device.
 */
@DeviceTest
class VirtualThreadServerDeviceTest {
    private static final int CLIENTS = 8;
    private static final Duration TIMEOUT = TestDevices.TIMEOUT;

    @Test
    void everyClientGetsItsNumberDoubled() throws Exception {
        try (Context context = TestDevices.device().open();
             ServerSocket listener = new ServerSocket(0, CLIENTS, InetAddress.getLoopbackAddress());
             ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            Thread server = Thread.ofVirtual().start(() -> serve(context, pd, listener, CLIENTS));
            List<Future<Long>> answers = new ArrayList<>();
            for (long i = 1; i <= CLIENTS; i++) {
                long n = i;
                answers.add(clients.submit(() -> client(context, pd, listener.getLocalPort(), n)));
            }
            for (int i = 0; i < CLIENTS; i++) {
                assertEquals(2L * (i + 1), answers.get(i).get());
            }
            server.join(TIMEOUT);
        }
    }

    // @start region="vt-server"
    /** Accepts {@code clients} clients, one virtual thread each; returns when all were served. */
    static void serve(Context context, ProtectionDomain pd, ServerSocket listener, int clients) {
        try (ExecutorService perClient = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < clients; i++) {
                ControlConnection peer = ControlConnection.accept(listener, TIMEOUT);
                perClient.submit(() -> {
                    try (peer) {
                        return serveOne(context, pd, peer);
                    }
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Receives a number over RDMA SEND and answers with its double on the control connection. */
    static long serveOne(Context context, ProtectionDomain pd, ControlConnection peer) throws IOException {
        // Each client gets its own channel and CQ: await() parks this virtual thread, not a carrier.
        try (CompletionChannel channel = context.createCompletionChannel();
             MemoryRegion buffer = pd.allocate(64)) {
            CompletionQueue cq = context.createCompletionQueue(4, channel);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            qp.toInit();
            qp.post(new ReceiveRequest().wrId(1).sge(buffer));
            cq.requestNotification(false);
            peer.connect(qp);
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc) == 0) {
                channel.await(TIMEOUT);   // RdmaTimeoutException if the client sends nothing
                cq.requestNotification(false);
            }
            long n = wc.checkSuccess().byteLength() == 8 ? buffer.segment().get(JAVA_LONG, 0) : -1;
            peer.send(2 * n);
            return n;
        }
    }
    // @end

    private static long client(Context context, ProtectionDomain pd, int port, long n) throws IOException {
        try (ControlConnection server = ControlConnection.connect(
                     new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT);
             MemoryRegion buffer = pd.allocate(64)) {
            CompletionQueue cq = context.createCompletionQueue(4);
            try (cq) {
                QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
                server.connect(qp);
                buffer.segment().set(JAVA_LONG, 0, n);
                qp.post(new SendRequest().wrId(2).sge(buffer, 0, 8));
                cq.take(new WorkCompletion(), TIMEOUT).checkSuccess();
                return server.receiveLong();
            }
        }
    }
}
