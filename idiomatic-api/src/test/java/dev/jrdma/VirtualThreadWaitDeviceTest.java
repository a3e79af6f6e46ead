// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.ConnectionRequest;
import dev.jrdma.testing.DeviceTest;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * Virtual threads waiting on completion channels and on rdma_cm event channels park instead of
 * holding their carriers. The device-test JVM runs with
 * {@code -Djdk.virtualThreadScheduler.parallelism=2} (scripts/device-tests): each waiter counts
 * down a latch just before it waits, and the events that wake them (completions, connect
 * requests) only come once all have counted down. Waits that held carriers would let two
 * waiters start and no more, and the latch would time out; {@link #aBlockingPollHoldsItsCarrier}
 * shows that happening with a plain blocking {@code poll(2)}.
 */
@DeviceTest
class VirtualThreadWaitDeviceTest {
    private static final int WAITERS = 200;

    private static int carriers() {
        String parallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        assertNotNull(parallelism, "run with -Djdk.virtualThreadScheduler.parallelism=2 (scripts/device-tests does)");
        int n = Integer.parseInt(parallelism);
        assertTrue(n <= 4, "the test needs few carriers, not " + n);
        return n;
    }

    /** Streams every {@code jdk.VirtualThreadPinned} event (threshold 0) of the threads named {@code prefix*}. */
    private static RecordingStream recordPinning(String prefix, List<RecordedEvent> pinned) {
        RecordingStream jfr = new RecordingStream();
        jfr.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
        jfr.onEvent("jdk.VirtualThreadPinned", e -> {
            if (e.getThread("eventThread") == null || !e.getThread("eventThread").getJavaName().startsWith(prefix)) {
                return;   // not one of the waiters (the warm-up)
            }
            synchronized (pinned) {
                pinned.add(e);
            }
        });
        jfr.startAsync();
        return jfr;
    }

    private static void assertNonePinned(List<RecordedEvent> pinned) {
        synchronized (pinned) {
            assertEquals(List.of(), pinned.stream().map(e -> e.getString("pinnedReason") + " at "
                    + (e.getStackTrace() == null ? "?" : e.getStackTrace().getFrames().getFirst().getMethod().getName()))
                    .toList(), "virtual threads pinned while waiting");
        }
    }

    @Test
    void twoHundredVirtualThreadsWaitOnTheirChannelsWithoutPinning() throws Exception {
        carriers();
        List<RecordedEvent> pinned = new ArrayList<>();
        try (RecordingStream jfr = recordPinning("waiter-", pinned);
             Context context = TestDevices.device().open()) {

            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue sink = context.createCompletionQueue(2 * WAITERS);
            MemoryRegion mr = pd.allocate(4096);
            CompletionChannel[] channels = new CompletionChannel[WAITERS];
            CompletionQueue[] cqs = new CompletionQueue[WAITERS];
            QueuePair[] senders = new QueuePair[WAITERS];
            for (int i = 0; i < WAITERS; i++) {
                channels[i] = context.createCompletionChannel();
                cqs[i] = context.createCompletionQueue(4, channels[i]);
                senders[i] = pd.queuePair(QueuePairType.RC).completionQueue(cqs[i]).build();
                QueuePair receiver = pd.queuePair(QueuePairType.RC).completionQueue(sink).build();
                Endpoint s = senders[i].localEndpoint();
                Endpoint r = receiver.localEndpoint();
                senders[i].connect(r);
                receiver.connect(s);
                receiver.post(new ReceiveRequest().wrId(i).sge(mr, 0, 64));
                cqs[i].requestNotification(false);
            }

            // One virtual thread first uses the wait path alone: the first call of a verb initialises
            // its binding class, and virtual threads that wait for another thread's class
            // initialisation pin their carrier (a JDK limit), once per class and JVM.
            QueuePair warmSender = pd.queuePair(QueuePairType.RC).completionQueue(cqs[0]).build();
            QueuePair warmReceiver = pd.queuePair(QueuePairType.RC).completionQueue(sink).build();
            Endpoint ws = warmSender.localEndpoint();
            Endpoint wr = warmReceiver.localEndpoint();
            warmSender.connect(wr);
            warmReceiver.connect(ws);
            warmReceiver.post(new ReceiveRequest().wrId(-1).sge(mr, 0, 64));
            warmSender.post(new SendRequest().wrId(-1).sge(mr, 64, 8));
            Thread warm = Thread.ofVirtual().name("warm-up").start(() -> channels[0].await(TestDevices.TIMEOUT));
            assertTrue(warm.join(TestDevices.TIMEOUT));
            WorkCompletion drain = new WorkCompletion();
            cqs[0].take(drain, TestDevices.TIMEOUT).checkSuccess();
            cqs[0].requestNotification(false);

            VirtualWaiters waiters = VirtualWaiters.start("waiter", WAITERS,
                    n -> channels[n].await(TestDevices.TIMEOUT), TestDevices.TIMEOUT);
            for (int i = WAITERS - 1; i >= 0; i--) {
                senders[i].post(new SendRequest().wrId(i).sge(mr, 64, 8));
            }
            waiters.joinAll(TestDevices.TIMEOUT.plusSeconds(5), "");
            for (int i = 0; i < WAITERS; i++) {
                assertEquals(cqs[i], waiters.result(i), "waiter " + i);
            }
            jfr.stop();   // delivers what is still buffered
        }
        assertNonePinned(pinned);
    }

    /**
     * 200 virtual threads, each with its own rdma_cm event channel and listening id, wait for a
     * connect request; the clients connect only once all are waiting, and each waiter rejects
     * its request (the client sees REJECTED), which keeps a round cheap under emulation.
     */
    @Test
    void twoHundredVirtualThreadsWaitForRdmaCmEventsWithoutPinning() throws Exception {
        carriers();
        Inet4Address address;
        try (Context context = TestDevices.device().open()) {
            address = TestDevices.gid(context).ipv4().orElseThrow(() -> new AssertionError("no IPv4 GID"));
        }
        List<RecordedEvent> pinned = new ArrayList<>();
        CmEventChannel[] channels = new CmEventChannel[WAITERS];
        try (RecordingStream jfr = recordPinning("cm-waiter-", pinned);
             CmEventChannel clients = CmEventChannel.create()) {
            CmId[] listeners = new CmId[WAITERS];
            for (int i = 0; i < WAITERS; i++) {
                channels[i] = CmEventChannel.create();
                listeners[i] = channels[i].createId();
                listeners[i].bind(new InetSocketAddress(address, 0));
                listeners[i].listen(1);
            }
            // The warm-up, as above: one virtual thread takes the whole path alone first.
            try (CmEventChannel warmChannel = CmEventChannel.create()) {
                CmId warmListener = warmChannel.createId();
                warmListener.bind(new InetSocketAddress(address, 0));
                warmListener.listen(1);
                Thread warm = Thread.ofVirtual().name("warm-up")
                        .start(() -> warmListener.awaitConnectRequest(TestDevices.TIMEOUT).id().reject(new byte[0]));
                connectRejected(clients, address, warmListener.localPort());
                assertTrue(warm.join(TestDevices.TIMEOUT));
            }

            // The clients connect one after another, each a few rdma_cm round trips: under a loaded
            // emulator 200 of them take longer than one TIMEOUT, so the waiters allow each its own.
            Duration waitLimit = TestDevices.TIMEOUT.multipliedBy(WAITERS);
            VirtualWaiters waiters = VirtualWaiters.start("cm-waiter", WAITERS, n -> {
                ConnectionRequest request = listeners[n].awaitConnectRequest(waitLimit);
                request.id().reject(new byte[0]);
                return request;
            }, TestDevices.TIMEOUT);
            for (int i = WAITERS - 1; i >= 0; i--) {
                connectRejected(clients, address, listeners[i].localPort());
            }
            waiters.joinAll(TestDevices.TIMEOUT, " after its client was rejected");
            for (int i = 0; i < WAITERS; i++) {
                assertInstanceOf(ConnectionRequest.class, waiters.result(i), "waiter " + i);
            }
            jfr.stop();
        } finally {
            for (CmEventChannel c : channels) {
                if (c != null) {
                    c.close();
                }
            }
        }
        assertNonePinned(pinned);
    }

    /** A client with a queue pair connects to {@code port} and is rejected; the id is closed again. */
    private static void connectRejected(CmEventChannel channel, Inet4Address address, int port) {
        try (CmId client = channel.createId()) {
            client.resolveAddress(new InetSocketAddress(address, port), TestDevices.TIMEOUT);
            client.resolveRoute(TestDevices.TIMEOUT);
            ProtectionDomain pd = client.context().allocateProtectionDomain();
            CompletionQueue cq = client.context().createCompletionQueue(2);
            client.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(1, 1));
            RdmaException e = assertThrows(RdmaException.class, () -> client.connect(new byte[0], TestDevices.TIMEOUT));
            assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
        }
    }

    /** The control: virtual threads in a blocking poll(2) hold their carriers, so a third never starts. */
    @Test
    void aBlockingPollHoldsItsCarrier() throws Exception {
        int carriers = carriers();
        try (Context context = TestDevices.device().open()) {
            List<CompletionChannel> channels = new ArrayList<>();
            for (int i = 0; i <= carriers; i++) {
                channels.add(context.createCompletionChannel());
            }
            CountDownLatch started = new CountDownLatch(carriers + 1);
            List<Thread> threads = new ArrayList<>();
            for (CompletionChannel channel : channels) {
                int fd = Integer.parseInt(channel.toString().split(" ")[3]);
                threads.add(Thread.ofVirtual().start(() -> {
                    started.countDown();
                    Posix.awaitReadable(fd, 3000);
                }));
            }
            assertFalse(started.await(1, TimeUnit.SECONDS), "all " + (carriers + 1) + " started: a carrier was free");
            for (Thread t : threads) {
                assertTrue(t.join(Duration.ofSeconds(20)));
            }
        }
    }
}
