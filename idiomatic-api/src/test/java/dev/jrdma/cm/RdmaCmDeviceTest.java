// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairState;
import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.TestDevices;
import dev.jrdma.WorkCompletion;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A client and a server connected through rdma_cm on the test device's IPv4 address. */
@DeviceTest
@EveryKernel
class RdmaCmDeviceTest extends CmTwoChannels {
    /** Server side of one connection: accept, receive one message, wait for the disconnect. */
    private static String serve(CmId listener) {
        ConnectionRequest request = listener.awaitConnectRequest(TIMEOUT);
        assertArrayEquals(bytes("client hello"), Arrays.copyOf(request.privateData(), 12),
                "private data arrives padded to 56 bytes");
        CmId id = request.id();
        ProtectionDomain pd = id.context().allocateProtectionDomain();
        CompletionQueue cq = id.context().createCompletionQueue(8);
        QueuePair qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
        MemoryRegion buffer = pd.allocate(4096);
        qp.post(new ReceiveRequest().wrId(1).sge(buffer));
        id.accept(bytes("server ok"), TIMEOUT);
        assertEquals(QueuePairState.RTS, qp.state());
        WorkCompletion wc = cq.take(new WorkCompletion(), TIMEOUT).checkSuccess();
        String message = new String(buffer.segment().asSlice(0, wc.byteLength()).toArray(JAVA_BYTE),
                StandardCharsets.US_ASCII);
        id.awaitDisconnect(TIMEOUT);
        id.close();
        assertTrue(qp.isClosed() && pd.isClosed(), "the id's QP, PD and context view close with it");
        return message;
    }

    @Test
    @Exercises({"rdma_create_event_channel", "rdma_destroy_event_channel", "rdma_create_id", "rdma_destroy_id",
            "rdma_bind_addr", "rdma_listen", "rdma_get_src_port", "rdma_resolve_addr", "rdma_resolve_route",
            "rdma_create_qp", "rdma_destroy_qp", "rdma_connect", "rdma_accept", "rdma_disconnect",
            "rdma_get_cm_event", "rdma_ack_cm_event"})
    void connectSendAndDisconnect() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = CmTestIds.listen(serverChannel, address, 4);
        int port = listener.localPort();
        assertTrue(port > 0);
        CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> serve(listener));

        CmId client = CmTestIds.resolvedClient(clientChannel, address, port);
        Context context = client.context();
        assertEquals(TestDevices.device().name(), context.name());
        ProtectionDomain pd = context.allocateProtectionDomain();
        CompletionQueue cq = context.createCompletionQueue(8);
        QueuePair qp = client.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
        assertEquals(QueuePairState.INIT, qp.state());
        byte[] reply = client.connect(bytes("client hello"), TIMEOUT);
        assertArrayEquals(bytes("server ok"), Arrays.copyOf(reply, 9));
        assertEquals(QueuePairState.RTS, qp.state());

        MemoryRegion buffer = pd.allocate(4096);
        byte[] hello = bytes("Hello over rdma_cm!");
        buffer.segment().copyFrom(MemorySegment.ofArray(hello));
        qp.post(new SendRequest().wrId(7).sge(buffer, 0, hello.length));
        assertEquals(7, cq.take(new WorkCompletion(), TIMEOUT).checkSuccess().wrId());
        client.disconnect(TIMEOUT);
        assertEquals("Hello over rdma_cm!", server.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
        client.close();
        assertTrue(qp.isClosed() && context.isClosed());
        assertThrows(IllegalStateException.class, client::context);
    }

    @Test
    @Exercises("rdma_reject")
    void aRejectedConnectNamesTheEvent() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = CmTestIds.listen(serverChannel, address, 1);
        CompletableFuture<Void> server = CompletableFuture.runAsync(
                () -> listener.awaitConnectRequest(TIMEOUT).id().reject(bytes("no")));
        CmId client = CmTestIds.resolvedClient(clientChannel, address, listener.localPort());
        ProtectionDomain pd = client.context().allocateProtectionDomain();
        CompletionQueue cq = client.context().createCompletionQueue(4);
        client.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
        RdmaException e = assertThrows(RdmaException.class, () -> client.connect(new byte[0], TIMEOUT));
        assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
        server.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        // closeChannels() closes every id, QP and context view.
    }

    @Test
    @Exercises({"rdma_create_event_channel", "rdma_destroy_event_channel"})
    void anUnusedChannelTimesOutAndClosesItsIds() {
        CmEventChannel channel = CmEventChannel.create();
        CmId id = CmTestIds.listen(channel, TestDevices.ipv4Address(), 1);
        RdmaTimeoutException e = assertThrows(RdmaTimeoutException.class,
                () -> id.awaitConnectRequest(Duration.ofMillis(200)));
        assertEquals("no rdma_cm event (awaiting a connect request) on " + id + " within 200 ms", e.getMessage());
        channel.close();
        assertTrue(id.isClosed());
        assertThrows(IllegalStateException.class, () -> id.listen(1));
    }
}
