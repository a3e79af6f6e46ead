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
import dev.jrdma.QueuePairType;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.TestDevices;
import dev.jrdma.WorkCompletion;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The endpoint API (rdma_getaddrinfo, rdma_create_ep, rdma_get_request) with rdma_verbs.h's
 * helpers ({@link RdmaVerbs}), as librdmacm's rdma_server and rdma_client examples use them.
 */
@DeviceTest
@EveryKernel
class CmEndpointDeviceTest extends CmTwoChannels {
    private static String text(MemorySegment segment, int length) {
        return new String(segment.asSlice(0, length).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    /** A queue pair on the endpoint, with a send and a receive CQ each on its own completion channel. */
    private static QueuePair queuePair(CmId id, SharedReceiveQueue srq) {
        Context context = id.context();
        ProtectionDomain pd = srq != null ? srq.protectionDomain() : context.allocateProtectionDomain();
        CompletionQueue sendCq = context.createCompletionQueue(8, context.createCompletionChannel());
        CompletionQueue receiveCq = context.createCompletionQueue(8, context.createCompletionChannel());
        return id.createQueuePair(pd.queuePair(QueuePairType.RC).sendCompletionQueue(sendCq)
                .receiveCompletionQueue(receiveCq).maxSges(2, 2));
    }

    /** A passive endpoint on an ephemeral port of the test device's address, listening. */
    private CmId listeningEndpoint(Inet4Address address) {
        List<AddressInfo> passive = AddressInfo.resolve(address.getHostAddress(), "0", true, QueuePairType.RC);
        assertTrue(passive.get(0).passive());
        assertEquals(new InetSocketAddress(address, 0), passive.get(0).source());
        CmId server = serverChannel.createEndpoint(passive.get(0));
        server.listen(2);
        return server;
    }

    /** An active endpoint towards {@code port}, resolved by rdma_create_ep. */
    private CmId connectingEndpoint(Inet4Address address, int port) {
        List<AddressInfo> active = AddressInfo.resolve(address.getHostAddress(), Integer.toString(port), false,
                QueuePairType.RC);
        assertEquals(new InetSocketAddress(address, port), active.get(0).destination());
        CmId client = clientChannel.createEndpoint(active.get(0));
        assertEquals(new InetSocketAddress(address, port), client.peerAddress(), "rdma_create_ep resolved it");
        return client;
    }

    @Test
    @Exercises({"rdma_getaddrinfo", "rdma_freeaddrinfo", "rdma_create_ep", "rdma_destroy_ep", "rdma_get_request",
            "rdma_reg_msgs", "rdma_post_recv", "rdma_post_send", "rdma_get_send_comp", "rdma_get_recv_comp",
            "rdma_dereg_mr"})
    void anEndpointClientAndServerExchangeMessages() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId server = listeningEndpoint(address);
        CompletableFuture<String> served = CompletableFuture.supplyAsync(() -> {
            ConnectionRequest request = server.awaitConnectRequest(TIMEOUT);
            assertArrayEquals(bytes("endpoint"), Arrays.copyOf(request.privateData(), 8));
            CmId id = request.id();
            queuePair(id, null);
            RdmaVerbs verbs = id.verbs();
            MemoryRegion mr = verbs.registerMessages(Arena.ofAuto().allocate(256));
            verbs.postReceive(1, mr, 0, 128);
            id.accept(new byte[0], TIMEOUT);
            WorkCompletion wc = verbs.awaitReceiveCompletion(new WorkCompletion(), TIMEOUT).checkSuccess();
            String message = text(mr.segment(), wc.byteLength());
            byte[] reply = bytes("re: " + message);
            mr.segment().asSlice(128).copyFrom(MemorySegment.ofArray(reply));
            verbs.postSend(2, mr, 128, reply.length, RdmaVerbs.SIGNALED);
            assertEquals(2, verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess().wrId());
            id.awaitDisconnect(TIMEOUT);
            verbs.deregister(mr);
            assertTrue(mr.isClosed());
            id.close();   // the DREP: the client's disconnect completes
            return message;
        });

        CmId client = connectingEndpoint(address, server.localPort());
        queuePair(client, null);
        RdmaVerbs verbs = client.verbs();
        MemoryRegion mr = verbs.registerMessages(Arena.ofAuto().allocate(256));
        verbs.postReceive(1, mr, 128, 128);
        client.connect(bytes("endpoint"), TIMEOUT);
        byte[] hello = bytes("hello endpoint");
        mr.segment().copyFrom(MemorySegment.ofArray(hello));
        verbs.postSend(2, mr, 0, hello.length, RdmaVerbs.SIGNALED);
        WorkCompletion wc = verbs.awaitSendCompletion(new WorkCompletion(), TIMEOUT).checkSuccess();
        assertEquals(2, wc.wrId());
        verbs.awaitReceiveCompletion(wc, TIMEOUT).checkSuccess();
        assertEquals("re: hello endpoint", text(mr.segment().asSlice(128), wc.byteLength()));
        client.disconnect(TIMEOUT);
        assertEquals("hello endpoint", served.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS));
        client.close();
        server.close();
        assertTrue(client.isClosed() && server.isClosed());
    }

    /**
     * The server registers one region for the client's READs and one for its WRITEs and sends
     * both keys in the accept; the client reads (rdma_post_read, readv), writes (rdma_post_write,
     * writev) and then sends a message gathered from two buffers (rdma_post_sendv), which the
     * server's SRQ of the id (rdma_create_srq) scatters into two (rdma_post_recvv).
     */
    @Test
    @Exercises({"rdma_reg_read", "rdma_reg_write", "rdma_post_read", "rdma_post_readv", "rdma_post_write",
            "rdma_post_writev", "rdma_post_sendv", "rdma_post_recvv", "rdma_create_srq", "rdma_destroy_srq"})
    void readsWritesAndGatheredSendsWithTheHelpers() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        CmId server = listeningEndpoint(address);
        byte[] served = bytes("data the client reads");
        CompletableFuture<String[]> result = CompletableFuture.supplyAsync(() -> {
            CmId id = server.awaitConnectRequest(TIMEOUT).id();
            ProtectionDomain pd = id.context().allocateProtectionDomain();
            SharedReceiveQueue srq = id.createSharedReceiveQueue(pd, 4, 2);
            QueuePair qp = queuePair(id, srq);
            assertEquals(srq, qp.sharedReceiveQueue().orElseThrow(), "the id's SRQ serves its queue pair");
            RdmaVerbs verbs = id.verbs();
            MemoryRegion readable = verbs.registerForRead(Arena.ofAuto().allocate(64));
            readable.segment().copyFrom(MemorySegment.ofArray(served));
            MemoryRegion writable = verbs.registerForWrite(Arena.ofAuto().allocate(64));
            MemoryRegion messages = verbs.registerMessages(Arena.ofAuto().allocate(64));
            verbs.postReceive(5, new RdmaVerbs.Sge(messages, 0, 6), new RdmaVerbs.Sge(messages, 32, 32));
            byte[] keys = ByteBuffer.allocate(2 * RemoteMemory.BYTES).put(readable.remote().toBytes())
                    .put(writable.remote().toBytes()).array();
            id.accept(keys, TIMEOUT);
            WorkCompletion wc = verbs.awaitReceiveCompletion(new WorkCompletion(), TIMEOUT).checkSuccess();
            assertEquals(5, wc.wrId());
            String first = text(messages.segment(), 6);
            String second = text(messages.segment().asSlice(32), wc.byteLength() - 6);
            // The SEND came after the WRITEs on the same RC connection: they have landed.
            String written = text(writable.segment(), 22);
            id.awaitDisconnect(TIMEOUT);
            id.close();
            assertTrue(srq.isClosed(), "closing the id destroys its SRQ");
            return new String[] {first, second, written};
        });

        CmId client = connectingEndpoint(address, server.localPort());
        queuePair(client, null);
        RdmaVerbs verbs = client.verbs();
        byte[] keys = client.connect(new byte[0], TIMEOUT);
        RemoteMemory readable = RemoteMemory.fromBytes(Arrays.copyOfRange(keys, 0, RemoteMemory.BYTES));
        RemoteMemory writable = RemoteMemory.fromBytes(Arrays.copyOfRange(keys, RemoteMemory.BYTES,
                2 * RemoteMemory.BYTES));
        MemoryRegion local = verbs.registerMessages(Arena.ofAuto().allocate(256));
        WorkCompletion wc = new WorkCompletion();

        verbs.postRead(1, local, 0, served.length, RdmaVerbs.SIGNALED, readable);
        verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess();
        assertEquals("data the client reads", text(local.segment(), served.length));
        verbs.postRead(2, new RdmaVerbs.Sge[] {new RdmaVerbs.Sge(local, 64, 4), new RdmaVerbs.Sge(local, 96, 17)},
                RdmaVerbs.SIGNALED, readable);
        verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess();
        assertEquals("data", text(local.segment().asSlice(64), 4));
        assertEquals(" the client reads", text(local.segment().asSlice(96), 17));

        local.segment().asSlice(128).copyFrom(MemorySegment.ofArray(bytes("written by ")));
        local.segment().asSlice(160).copyFrom(MemorySegment.ofArray(bytes("the client")));
        verbs.postWrite(3, local, 128, 11, RdmaVerbs.SIGNALED, writable);
        verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess();
        verbs.postWrite(4, new RdmaVerbs.Sge[] {new RdmaVerbs.Sge(local, 160, 10)}, RdmaVerbs.SIGNALED,
                writable.slice(11, 10));
        verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess();

        local.segment().asSlice(192).copyFrom(MemorySegment.ofArray(bytes("gather")));
        local.segment().asSlice(224).copyFrom(MemorySegment.ofArray(bytes("ed send")));
        verbs.postSend(5, new RdmaVerbs.Sge[] {new RdmaVerbs.Sge(local, 192, 6), new RdmaVerbs.Sge(local, 224, 7)},
                RdmaVerbs.SIGNALED);
        assertEquals(5, verbs.awaitSendCompletion(wc, TIMEOUT).checkSuccess().wrId());
        client.disconnect(TIMEOUT);
        String[] got = result.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
        assertEquals("gather", got[0]);
        assertEquals("ed send", got[1]);
        assertEquals("written by the client\0", got[2]);
        CmId bare = clientChannel.createId();
        assertThrows(IllegalStateException.class, () -> bare.verbs().postReceive(1, local, 0, 1),
                "no queue pair on the id");
    }
}
