// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Closing any resource while other threads post, poll and wait on it or on its dependents: the
 * calls complete or throw IllegalStateException, and the JVM never crashes. Before close()
 * waited for the calls inside a resource, this killed the JVM with SIGSEGV in most rounds
 * (a CQ destroyed under ibv_poll_cq, a QP under ibv_post_send); scripts/test fails on the
 * crash log such a JVM leaves. Prepared requests ({@link PreparedSend}, {@link PreparedReceive})
 * are posted alongside the one-off ones.
 */
@DeviceTest
class ConcurrentCloseDeviceTest {
    private static final int ROUNDS = 210;
    /** Bounds each worker's stop after the context is closed: a hang is a failure, not a wait. */
    private static final Duration WORKER_STOP = Duration.ofSeconds(20);

    /** What the round closes first, at a random moment while the workers run. */
    enum Target { CONTEXT, PROTECTION_DOMAIN, COMPLETION_QUEUE, QUEUE_PAIR, MEMORY_REGION, SHARED_RECEIVE_QUEUE,
        COMPLETION_CHANNEL }

    /** One round's resources: a sender QP, a receiver QP on an SRQ, one CQ on a channel. */
    private static final class Round implements AutoCloseable {
        final Context context = TestDevices.device().open();
        final CompletionChannel channel;
        final CompletionQueue cq;
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final SharedReceiveQueue srq;
        final QueuePair sender;
        final QueuePair receiver;

        Round() {
            try {
                channel = context.createCompletionChannel();
                cq = context.createCompletionQueue(256, channel);
                pd = context.allocateProtectionDomain();
                mr = pd.allocate(4096, Loopback.ALL);
                srq = pd.createSharedReceiveQueue(64, 1);
                sender = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxInlineData(64).maxWorkRequests(64, 1)
                        .build();
                receiver = pd.queuePair(QueuePairType.RC).completionQueue(cq).sharedReceiveQueue(srq).build();
                int gidIndex = TestDevices.gid(context).index();
                Endpoint es = sender.localEndpoint(TestDevices.PORT, gidIndex);
                Endpoint er = receiver.localEndpoint(TestDevices.PORT, gidIndex);
                sender.connect(er);
                receiver.connect(es);
            } catch (RuntimeException | Error e) {
                context.close();
                throw e;
            }
        }

        AutoCloseable target(Target t) {
            return switch (t) {
                case CONTEXT -> context;
                case PROTECTION_DOMAIN -> pd;
                case COMPLETION_QUEUE -> cq;
                case QUEUE_PAIR -> sender;
                case MEMORY_REGION -> mr;
                case SHARED_RECEIVE_QUEUE -> srq;
                case COMPLETION_CHANNEL -> channel;
            };
        }

        @Override
        public void close() {
            context.close();
        }
    }

    /** A worker's loop body; it runs until a call throws. */
    private interface Step {
        void run();
    }

    @Test
    void closingAnyResourceWhileOthersPostPollAndWaitThrowsIllegalStateNeverCrashes() throws Exception {
        long seed = Long.getLong("jrdma.test.seed", System.nanoTime());
        Random random = new Random(seed);
        Map<Target, Integer> roundsBy = new EnumMap<>(Target.class);
        AtomicLong calls = new AtomicLong();
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            Target target = Target.values()[round % Target.values().length];
            roundsBy.merge(target, 1, Integer::sum);
            long closeAfterMicros = random.nextInt(3_000);
            runRound(target, closeAfterMicros, calls, failures, "round " + round + " (seed " + seed + ", " + target
                    + " closed after " + closeAfterMicros + " us)");
        }
        assertEquals(List.of(), failures);
        assertTrue(calls.get() > ROUNDS * 4L, "the workers made " + calls.get() + " calls in " + ROUNDS + " rounds");
        assertEquals(Target.values().length, roundsBy.size());
    }

    private static void runRound(Target target, long closeAfterMicros, AtomicLong calls, List<String> failures,
                                 String round) throws Exception {
        Round r = new Round();
        SendRequest send = new SendRequest().wrId(1).opcode(SendOpcode.SEND).sge(r.mr, 0, 32).inline(true)
                .signaled(true);
        ReceiveRequest receive = new ReceiveRequest().wrId(2).sge(r.mr, 1024, 1024);
        WorkCompletions batch = new WorkCompletions(16);
        // Prepared twins of the same requests, posted by the same workers (one thread per queue):
        // closing the QP, SRQ, region or anything above them must make their next post throw too.
        PreparedSend preparedSend = PreparedSend.of(r.sender, send);
        PreparedReceive preparedReceive = PreparedReceive.of(r.srq, receive);
        List<Step> steps = List.of(
                () -> {
                    r.sender.tryPost(send);
                    preparedSend.tryPost();
                },
                () -> {
                    r.srq.tryPost(receive);
                    preparedReceive.tryPost();
                },
                () -> r.cq.poll(batch),
                () -> {
                    r.cq.requestNotification(false);
                    try {
                        r.channel.await(Duration.ofMillis(2));
                    } catch (RdmaTimeoutException quiet) {
                        // no completion in 2 ms: the loop waits again
                    }
                });
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(steps.size());
        CountDownLatch stoppedByClose = new CountDownLatch(steps.size());
        List<Thread> workers = new ArrayList<>();
        for (Step step : steps) {
            workers.add(Thread.ofPlatform().daemon().start(() -> {
                started.countDown();
                try {
                    while (!stop.get()) {
                        step.run();
                        calls.incrementAndGet();
                    }
                } catch (IllegalStateException expected) {
                    stoppedByClose.countDown();
                } catch (Throwable t) {
                    unexpected.add(t);
                }
            }));
        }
        try {
            started.await();
            TimeUnit.MICROSECONDS.sleep(closeAfterMicros);
            r.target(target).close();
            TimeUnit.MICROSECONDS.sleep(500);
        } finally {
            // Whatever the first close left running, closing the context ends it.
            r.close();
        }
        boolean allStopped = stoppedByClose.await(WORKER_STOP.toMillis(), TimeUnit.MILLISECONDS);
        stop.set(true);
        for (Thread w : workers) {
            w.join(WORKER_STOP.toMillis());
            if (w.isAlive()) {
                failures.add(round + ": a worker still runs " + WORKER_STOP + " after the context was closed");
            }
        }
        for (Throwable t : unexpected) {
            failures.add(round + ": " + t);
        }
        if (!allStopped && unexpected.isEmpty()) {
            failures.add(round + ": " + stoppedByClose.getCount() + " worker(s) did not end with"
                    + " IllegalStateException after the context was closed");
        }
    }
}
