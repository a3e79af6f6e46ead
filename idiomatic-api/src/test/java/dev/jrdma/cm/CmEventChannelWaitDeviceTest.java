// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.CompletionQueue;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.TestDevices;
import dev.jrdma.testing.DeviceTest;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Waits on an rdma_cm event channel from several threads, and a close() of the channel or of
 * an id from another thread while they wait: the waiters end promptly with
 * IllegalStateException, close() does not wait for their timeouts, and the JVM never crashes
 * (a channel destroyed while a thread reads it, or an id while its event is being queued).
 */
@DeviceTest
class CmEventChannelWaitDeviceTest {
    private static final Duration TIMEOUT = TestDevices.TIMEOUT;
    /** Far below TIMEOUT: a waiter that needed its whole timeout to notice a close fails. */
    private static final Duration PROMPT = Duration.ofSeconds(5);
    private static final int ROUNDS = 40;

    private static Thread start(boolean virtual, String name, Runnable body) {
        return virtual ? Thread.ofVirtual().name(name).start(body) : Thread.ofPlatform().name(name).start(body);
    }

    /**
     * Starts a thread that waits on {@code listener} for a connect request and completes
     * {@code ended} with how the wait ended (null: a request came); returns once it is about to wait.
     */
    private static Thread awaitRequestInThread(boolean virtual, CmId listener, CompletableFuture<Throwable> ended)
            throws InterruptedException {
        CountDownLatch waiting = new CountDownLatch(1);
        Thread waiter = start(virtual, "waiter", () -> {
            waiting.countDown();
            try {
                listener.awaitConnectRequest(TIMEOUT);
                ended.complete(null);
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        assertTrue(waiting.await(PROMPT.toSeconds(), TimeUnit.SECONDS));
        return waiter;
    }

    @Test
    void closingTheChannelEndsAWaitAtOnce() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        for (boolean virtual : new boolean[] {false, true}) {
            CmEventChannel channel = CmEventChannel.create();
            CmId listener = CmTestIds.listen(channel, address, 1);
            CompletableFuture<Throwable> ended = new CompletableFuture<>();
            Thread waiter = awaitRequestInThread(virtual, listener, ended);
            Thread.sleep(300);   // well inside the wait
            long start = System.nanoTime();
            channel.close();
            Duration closing = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(closing.compareTo(PROMPT) < 0, "close() took " + closing + " (virtual waiter: " + virtual + ")");
            Throwable t = ended.get(PROMPT.toSeconds(), TimeUnit.SECONDS);
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, t);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertTrue(waiter.join(PROMPT));
            assertTrue(listener.isClosed());
        }
    }

    @Test
    void closingTheIdEndsAWaitOnIt() throws Exception {
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId listener = CmTestIds.listen(channel, TestDevices.ipv4Address(), 1);
            CompletableFuture<Throwable> ended = new CompletableFuture<>();
            awaitRequestInThread(true, listener, ended);
            Thread.sleep(300);   // inside the wait, unless the machine is very slow (then "is closed")
            listener.close();
            IllegalStateException e = assertInstanceOf(IllegalStateException.class,
                    ended.get(PROMPT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(e.getMessage().startsWith(listener + " was closed while a thread awaited an rdma_cm event")
                    || e.getMessage().equals(listener + " is closed"), e.getMessage());
            assertTrue(!channel.isClosed(), "the channel stays open");
        }
    }

    /** Two threads wait on one channel for their own listeners; each gets the request sent to it. */
    @Test
    void waitersOnOneChannelEachGetTheirOwnEvents() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        try (CmEventChannel serverChannel = CmEventChannel.create();
             CmEventChannel clientChannel = CmEventChannel.create()) {
            List<CmId> listeners = new ArrayList<>();
            List<CompletableFuture<byte[]>> received = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                CmId listener = CmTestIds.listen(serverChannel, address, 1);
                listeners.add(listener);
                CompletableFuture<byte[]> data = new CompletableFuture<>();
                received.add(data);
                start(i == 0, "listener-" + i, () -> {
                    try {
                        // Both clients connect within this, one after the other (each its own TIMEOUT).
                        ConnectionRequest request = listener.awaitConnectRequest(TIMEOUT.multipliedBy(3));
                        data.complete(request.privateData());
                        request.id().reject(new byte[0]);
                    } catch (Throwable t) {
                        data.completeExceptionally(t);
                    }
                });
            }
            // The second listener's request first: the thread that reads it is then likely the first one's.
            for (int i = 1; i >= 0; i--) {
                CmId client = CmTestIds.resolvedClient(clientChannel, address, listeners.get(i).localPort());
                ProtectionDomain pd = client.context().allocateProtectionDomain();
                CompletionQueue cq = client.context().createCompletionQueue(4);
                client.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
                byte[] hello = ("to listener " + i).getBytes(StandardCharsets.US_ASCII);
                RdmaException e = assertThrows(RdmaException.class, () -> client.connect(hello, TIMEOUT));
                assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
                assertArrayEquals(hello, Arrays.copyOf(received.get(i).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                        hello.length));
                client.close();
            }
        }
    }

    /**
     * Rounds of waiters (virtual and platform), a thread creating ids and resolving addresses
     * (events arrive and ids are destroyed all the time), and a close of the channel or of one
     * waiter's id at a random moment. Every thread must end within {@link #PROMPT} of the
     * channel's close, with nothing but timeouts and IllegalStateException.
     */
    @Test
    void closingAtRandomMomentsEndsEveryWaitAndNeverCrashes() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        Random random = new Random(26);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < ROUNDS; round++) {
            CmEventChannel channel = CmEventChannel.create();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            List<CmId> listeners = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                CmId listener = CmTestIds.listen(channel, address, 1);
                listeners.add(listener);
                threads.add(start(i != 0, "waiter-" + i, () -> {
                    while (!stop.get()) {
                        try {
                            listener.awaitConnectRequest(Duration.ofMillis(1 + jitter(20)));
                        } catch (RdmaTimeoutException quiet) {
                            // no client: the usual outcome, and the wait starts again
                        } catch (IllegalStateException closed) {
                            return;
                        } catch (Throwable t) {
                            unexpected.add(t);
                            return;
                        }
                    }
                }));
            }
            threads.add(start(true, "resolver", () -> {
                while (!stop.get()) {
                    try (CmId id = channel.createId()) {
                        id.resolveAddress(new InetSocketAddress(address, 1), Duration.ofSeconds(2));
                    } catch (IllegalStateException closed) {
                        return;
                    } catch (RdmaTimeoutException slow) {
                        // a loaded emulator: try again
                    } catch (Throwable t) {
                        unexpected.add(t);
                        return;
                    }
                }
            }));
            Thread.sleep(random.nextInt(60));   // the waiters are in and out of their waits
            if (random.nextBoolean()) {
                listeners.get(random.nextInt(listeners.size())).close();
                Thread.sleep(random.nextInt(20));
            }
            channel.close();
            stop.set(true);
            for (Thread t : threads) {
                assertTrue(t.join(PROMPT), t + " still runs " + PROMPT + " after the close (round " + round + ")");
            }
            assertTrue(listeners.stream().allMatch(CmId::isClosed));
        }
        assertEquals(List.of(), unexpected.stream().map(Throwable::toString).toList());
    }

    private static int jitter(int bound) {
        return java.util.concurrent.ThreadLocalRandom.current().nextInt(bound);
    }
}
