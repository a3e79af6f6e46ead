// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.AsyncEventType;
import dev.jrdma.Ece;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairState;
import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.TestDevices;
import dev.jrdma.Verb;
import dev.jrdma.WorkCompletion;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Connections whose queue pair the application created itself ({@link ExternalQueuePair}):
 * rdma_init_qp_attr's attributes drive it, rdma_establish and rdma_notify finish the handshake,
 * ECE options travel with the request; and an id moved to another event channel.
 */
@DeviceTest
@EveryKernel
class CmExternalQueuePairDeviceTest extends CmTwoChannels {
    /** IB CM's reject reason 35, CM_REJ_VENDOR_OPTION_NOT_SUPPORTED, which rdma_reject_ece sends. */
    private static final int VENDOR_OPTION_NOT_SUPPORTED = 35;

    /** A queue pair the application creates with ibv_create_qp on {@code id}'s device, in RESET. */
    private static QueuePair ownQueuePair(CmId id) {
        return TestDevices.rcQueuePair(id.context());
    }

    /**
     * The server accepts, then reports COMM_EST itself (rdma_notify): its ESTABLISHED arrives
     * while the client still holds back its RTU (rdma_establish), which the test makes it do
     * only afterwards; then a message crosses the two application queue pairs.
     */
    @Test
    @Exercises({"rdma_init_qp_attr", "rdma_establish", "rdma_notify"})
    void applicationQueuePairsConnectWithRdmaCmsAttributes() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = CmTestIds.listen(serverChannel, address, 1);
        CountDownLatch serverEstablished = new CountDownLatch(1);
        CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> {
            ConnectionRequest request = listener.awaitConnectRequest(TIMEOUT);
            assertArrayEquals(bytes("own qp"), Arrays.copyOf(request.privateData(), 6));
            QueuePair qp = ownQueuePair(request.id());
            ExternalQueuePair connection = ExternalQueuePair.of(request.id(), qp);
            connection.moveTo(QueuePairState.INIT);
            connection.moveTo(QueuePairState.RTR);
            MemoryRegion buffer = qp.protectionDomain().allocate(4096);
            qp.post(new ReceiveRequest().wrId(1).sge(buffer));
            connection.moveTo(QueuePairState.RTS);
            connection.accept(bytes("accepted"));
            connection.notify(AsyncEventType.COMM_EST);
            connection.awaitEstablished(TIMEOUT);
            serverEstablished.countDown();
            WorkCompletion wc = qp.receiveCompletionQueue().take(new WorkCompletion(), TIMEOUT).checkSuccess();
            return new String(buffer.segment().asSlice(0, wc.byteLength()).toArray(JAVA_BYTE),
                    StandardCharsets.US_ASCII);
        });

        CmId client = CmTestIds.resolvedClient(clientChannel, address, listener.localPort());
        QueuePair qp = ownQueuePair(client);
        ExternalQueuePair connection = ExternalQueuePair.of(client, qp);
        connection.moveTo(QueuePairState.INIT);
        assertEquals(QueuePairState.INIT, qp.state());
        byte[] reply = connection.requestConnection(bytes("own qp"), TIMEOUT);
        assertArrayEquals(bytes("accepted"), Arrays.copyOf(reply, 8));
        connection.moveTo(QueuePairState.RTR);
        connection.moveTo(QueuePairState.RTS);
        assertEquals(QueuePairState.RTS, qp.state());
        assertTrue(serverEstablished.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                "rdma_notify(COMM_EST) established the server side before the client's RTU");
        connection.establish();

        MemoryRegion buffer = qp.protectionDomain().allocate(4096);
        byte[] hello = bytes("Hello from an application queue pair");
        buffer.segment().copyFrom(MemorySegment.ofArray(hello));
        qp.post(new SendRequest().wrId(7).sge(buffer, 0, hello.length));
        assertEquals(7, qp.sendCompletionQueue().take(new WorkCompletion(), TIMEOUT).checkSuccess().wrId());
        assertEquals("Hello from an application queue pair", server.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> ExternalQueuePair.of(listener, qp),
                "the queue pair belongs to another id's context view");
    }

    /**
     * The client's ECE options reach the server (rdma_get_remote_ece), which turns them down
     * (rdma_reject_ece): the client's request fails with REJECTED and IB CM's reason 35.
     */
    @Test
    @Exercises({"rdma_set_local_ece", "rdma_get_remote_ece", "rdma_reject_ece"})
    void eceOptionsReachTheServerWhichCanRejectThem() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId listener = CmTestIds.listen(serverChannel, address, 1);
        CompletableFuture<Ece> server = CompletableFuture.supplyAsync(() -> {
            CmId id = listener.awaitConnectRequest(TIMEOUT).id();
            ExternalQueuePair connection = ExternalQueuePair.of(id, ownQueuePair(id));
            Ece offered = connection.remoteEce();
            connection.rejectEce(bytes("no ece"));
            return offered;
        });
        CmId client = CmTestIds.resolvedClient(clientChannel, address, listener.localPort());
        ExternalQueuePair connection = ExternalQueuePair.of(client, ownQueuePair(client));
        connection.moveTo(QueuePairState.INIT);
        Ece ece = new Ece(0x02c9, 0x5);
        connection.setLocalEce(ece);
        RdmaException e = assertThrows(RdmaException.class,
                () -> connection.requestConnection(bytes("ece"), TIMEOUT));
        assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
        assertEquals(VENDOR_OPTION_NOT_SUPPORTED, e.errno(), e.getMessage());
        assertEquals(ece, server.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        RdmaException invalid = assertThrows(RdmaException.class,
                () -> connection.setLocalEce(new Ece(0, 1)));
        assertEquals(Verb.RDMA_SET_LOCAL_ECE, invalid.verb());
    }

    /**
     * A listener moved to another channel (rdma_migrate_id) gets its connect request there, and
     * belongs to that channel: closing the first leaves it open, closing the second closes it.
     */
    @Test
    @Exercises("rdma_migrate_id")
    void aMigratedListenersRequestsArriveOnTheNewChannel() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmEventChannel first = CmEventChannel.create();
        CmId listener = CmTestIds.listen(first, address, 1);
        listener.migrate(serverChannel);
        first.close();
        assertFalse(listener.isClosed(), "the id left the first channel");
        CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
            CmId id = listener.awaitConnectRequest(TIMEOUT).id();
            ProtectionDomain pd = id.context().allocateProtectionDomain();
            id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(id.context().createCompletionQueue(4)));
            id.accept(new byte[0], TIMEOUT);
        });
        CmId client = CmTestIds.resolvedClient(clientChannel, address, listener.localPort());
        ProtectionDomain pd = client.context().allocateProtectionDomain();
        client.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(client.context().createCompletionQueue(4)));
        client.connect(new byte[0], TIMEOUT);
        server.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        serverChannel.close();
        assertTrue(listener.isClosed(), "closing the new channel closes the migrated id");
    }
}
