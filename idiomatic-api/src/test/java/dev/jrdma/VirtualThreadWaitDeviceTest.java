// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.testing.DeviceTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * Virtual threads waiting on completion channels park instead of holding their carriers. The
 * device-test JVM runs with {@code -Djdk.virtualThreadScheduler.parallelism=2} (scripts/device-tests):
 * each waiter counts down a latch just before it waits, and the completions that wake them are
 * only posted once all have counted down. Waits that held carriers would let two waiters start
 * and no more, and the latch would time out; {@link #aBlockingPollHoldsItsCarrier} shows that
 * happening with a plain blocking {@code poll(2)}.
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

    @Test
    void twoHundredVirtualThreadsWaitOnTheirChannelsWithoutPinning() throws Exception {
        carriers();
        List<RecordedEvent> pinned = new ArrayList<>();
        try (RecordingStream jfr = new RecordingStream();
             Context context = TestDevices.device().open()) {
            jfr.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            jfr.onEvent("jdk.VirtualThreadPinned", e -> {
                if (e.getThread("eventThread") == null || !e.getThread("eventThread").getJavaName().startsWith("waiter-")) {
                    return;   // not one of the waiters below (the warm-up)
                }
                synchronized (pinned) {
                    pinned.add(e);
                }
            });
            jfr.startAsync();

            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue sink = context.createCompletionQueue(2 * WAITERS);
            MemoryRegion mr = pd.allocate(4096);
            int gid = TestDevices.gid(context).index();
            CompletionChannel[] channels = new CompletionChannel[WAITERS];
            CompletionQueue[] cqs = new CompletionQueue[WAITERS];
            QueuePair[] senders = new QueuePair[WAITERS];
            for (int i = 0; i < WAITERS; i++) {
                channels[i] = context.createCompletionChannel();
                cqs[i] = context.createCompletionQueue(4, channels[i]);
                senders[i] = pd.queuePair(QueuePairType.RC).completionQueue(cqs[i]).build();
                QueuePair receiver = pd.queuePair(QueuePairType.RC).completionQueue(sink).build();
                Endpoint s = senders[i].localEndpoint(TestDevices.PORT, gid);
                Endpoint r = receiver.localEndpoint(TestDevices.PORT, gid);
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
            Endpoint ws = warmSender.localEndpoint(TestDevices.PORT, gid);
            Endpoint wr = warmReceiver.localEndpoint(TestDevices.PORT, gid);
            warmSender.connect(wr);
            warmReceiver.connect(ws);
            warmReceiver.post(new ReceiveRequest().wrId(-1).sge(mr, 0, 64));
            warmSender.post(new SendRequest().wrId(-1).sge(mr, 64, 8));
            Thread warm = Thread.ofVirtual().name("warm-up").start(() -> channels[0].await(TestDevices.TIMEOUT));
            assertTrue(warm.join(TestDevices.TIMEOUT));
            WorkCompletion drain = new WorkCompletion();
            cqs[0].take(drain, TestDevices.TIMEOUT).checkSuccess();
            cqs[0].requestNotification(false);

            CountDownLatch waiting = new CountDownLatch(WAITERS);
            AtomicReferenceArray<Object> woke = new AtomicReferenceArray<>(WAITERS);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                int n = i;
                threads.add(Thread.ofVirtual().name("waiter-" + i).start(() -> {
                    waiting.countDown();
                    try {
                        woke.set(n, channels[n].await(TestDevices.TIMEOUT));
                    } catch (RuntimeException e) {
                        woke.set(n, e);
                    }
                }));
            }
            assertTrue(waiting.await(TestDevices.TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                    (WAITERS - waiting.getCount()) + " of " + WAITERS + " waiters started: the waits hold their carriers");
            for (int i = WAITERS - 1; i >= 0; i--) {
                senders[i].post(new SendRequest().wrId(i).sge(mr, 64, 8));
            }
            for (Thread t : threads) {
                assertTrue(t.join(TestDevices.TIMEOUT.plusSeconds(5)), t + " did not end");
            }
            for (int i = 0; i < WAITERS; i++) {
                assertEquals(cqs[i], woke.get(i), "waiter " + i);
            }
            jfr.stop();   // delivers what is still buffered
        }
        assertEquals(List.of(), pinned.stream().map(e -> e.getString("pinnedReason") + " at "
                + (e.getStackTrace() == null ? "?" : e.getStackTrace().getFrames().getFirst().getMethod().getName()))
                .toList(), "virtual threads pinned while waiting");
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
