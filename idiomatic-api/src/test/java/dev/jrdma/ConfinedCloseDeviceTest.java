// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Confined prepared requests and polls ({@code ofConfined}; a send, a receive, an extended RDMA
 * write through {@code ibv_wr_*} on a send queue the owner owns, and a poll) under concurrent close:
 * while their owner thread posts and polls them in a loop (with no guard word, no send queue claim),
 * another thread tries again and again to close what they depend on, to post them and to open an
 * extended batch on the owner's queue pair; every attempt is refused with WrongThreadException and
 * changes nothing, and the owner's posts go on completing. Then, by turns, the owner closes its
 * requests (after which the other thread's close succeeds), closes the dependency itself (its
 * next post throws IllegalStateException), or ends without closing anything (after which any
 * thread may). A post on a destroyed queue pair would crash the JVM (SIGSEGV in the provider);
 * scripts/test fails on the crash log such a JVM leaves.
 */
@DeviceTest
class ConfinedCloseDeviceTest {
    private static final int ROUNDS = 90;
    /** Refused closes per round, a few microseconds apart, while the owner posts. */
    private static final int ATTEMPTS = 20;
    private static final Duration WAIT = Duration.ofSeconds(30);

    enum Target { CONTEXT, PROTECTION_DOMAIN, COMPLETION_QUEUE, SENDER, RECEIVER, MEMORY_REGION }

    /** How the owner thread ends its round. */
    enum Ending { CLOSES_ITS_REQUESTS, CLOSES_THE_TARGET, ENDS_WITHOUT_CLOSING }

    /** A connected RC loopback pair on one CQ, and one region. */
    private static final class Pair implements AutoCloseable {
        final Context context = TestDevices.device().open();
        final CompletionQueue cq;
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final QueuePair sender;
        final QueuePair receiver;

        Pair() {
            try {
                cq = context.createCompletionQueue(256);
                pd = context.allocateProtectionDomain();
                mr = pd.allocate(4096, Loopback.ALL);
                // Also created for the extended post: the owner posts a confined PreparedExtendedSend too.
                sender = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxInlineData(64).maxWorkRequests(64, 1)
                        .extendedPost(SendOp.RDMA_WRITE).build();
                receiver = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(1, 64).build();
                TestDevices.connectEachOther(sender, receiver);
            } catch (RuntimeException | Error e) {
                context.close();
                throw e;
            }
        }

        NativeResource target(Target t) {
            return switch (t) {
                case CONTEXT -> context;
                case PROTECTION_DOMAIN -> pd;
                case COMPLETION_QUEUE -> cq;
                case SENDER -> sender;
                case RECEIVER -> receiver;
                case MEMORY_REGION -> mr;
            };
        }

        @Override
        public void close() {
            context.close();
        }
    }

    @Test
    void otherThreadsCannotCloseWhatAConfinedPostUsesAndItsOwnerCan() throws Exception {
        long seed = Long.getLong("jrdma.test.seed", System.nanoTime());
        Random random = new Random(seed);
        List<String> failures = new ArrayList<>();
        long completions = 0;
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            Target target = Target.values()[round % Target.values().length];
            Ending ending = Ending.values()[round / Target.values().length % Ending.values().length];
            String name = "round " + round + " (seed " + seed + ", " + target + ", owner " + ending + ")";
            completions += runRound(target, ending, random, failures, name);
        }
        assertEquals(List.of(), failures);
        assertTrue(completions > ROUNDS, completions + " successful completions in " + ROUNDS + " rounds");
    }

    private static long runRound(Target target, Ending ending, Random random, List<String> failures, String round)
            throws Exception {
        Pair p = new Pair();
        try {
            NativeResource dependency = p.target(target);
            AtomicLong posts = new AtomicLong();
            AtomicLong successes = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch ready = new CountDownLatch(1);
            CompletableFuture<PreparedSend> shared = new CompletableFuture<>();
            CompletableFuture<PreparedExtendedSend> sharedExtended = new CompletableFuture<>();
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread owner = Thread.ofPlatform().name("owner").daemon().start(() -> {
                try {
                    PreparedSend send = PreparedSend.ofConfined(p.sender, new SendRequest().wrId(1)
                            .opcode(SendOpcode.SEND).sge(p.mr, 0, 32).inline(true).signaled(true));
                    PreparedReceive recv = PreparedReceive.ofConfined(p.receiver,
                            new ReceiveRequest().wrId(2).sge(p.mr, 1024, 1024));
                    PreparedPoll poll = PreparedPoll.ofConfined(p.cq);
                    // An RDMA write through ibv_wr_*: it consumes no receive, so the pair's
                    // receive queue keeps pace with the sends. This thread owns the sender's send
                    // queue, so its posts make no claim (as the CLI's loops).
                    PreparedExtendedSend write = PreparedExtendedSend.ofConfined(
                            ExtendedSendQueue.of(p.sender).ownSendQueue(),
                            new SendRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE).sge(p.mr, 64, 32)
                                    .remote(p.mr.remote().slice(2048, 32)).signaled(true));
                    sharedExtended.complete(write);
                    shared.complete(send);
                    ready.countDown();
                    while (!stop.get()) {
                        recv.tryPost();
                        send.tryPost();
                        write.tryPost();
                        posts.incrementAndGet();
                        for (int status; (status = poll.poll()) != PreparedPoll.EMPTY; ) {
                            successes.addAndGet(status == PreparedPoll.SUCCESS ? 1 : 0);
                        }
                    }
                    outcome.complete(switch (ending) {
                        case CLOSES_ITS_REQUESTS -> {
                            send.close();
                            recv.close();
                            poll.close();
                            write.close();
                            yield send.isClosed() && recv.isClosed() && poll.isClosed() && write.isClosed() ? ""
                                    : "its requests did not close";
                        }
                        case CLOSES_THE_TARGET -> {
                            dependency.close();
                            boolean refused = false;
                            try {
                                send.post();
                                recv.post();
                            } catch (IllegalStateException expected) {
                                refused = expected.getClass() == IllegalStateException.class;
                            }
                            // The extended write depends on the sender and the region only.
                            boolean writeRefused = !write.isClosed();
                            try {
                                write.post();
                            } catch (IllegalStateException expected) {
                                writeRefused = expected.getClass() == IllegalStateException.class;
                            }
                            yield refused && writeRefused && dependency.isClosed() ? ""
                                    : "after closing " + dependency + " its posts were not refused";
                        }
                        case ENDS_WITHOUT_CLOSING -> "";
                    });
                } catch (Throwable t) {
                    ready.countDown();
                    shared.completeExceptionally(t);
                    outcome.complete("the owner thread failed: " + t);
                }
            });
            assertTrue(ready.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), round + ": the owner started");
            PreparedSend send = shared.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            PreparedExtendedSend write = sharedExtended.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            ExtendedSendQueue otherBatches = ExtendedSendQueue.of(p.sender);
            for (int i = 0; i < ATTEMPTS; i++) {
                TimeUnit.MICROSECONDS.sleep(random.nextInt(500));
                String refused = refusedClose(dependency);
                if (refused != null) {
                    failures.add(round + ": " + refused);
                    break;
                }
                try {
                    send.tryPost();
                    failures.add(round + ": another thread posted the confined " + send);
                } catch (WrongThreadException expected) {
                    // as it must be
                }
                try {
                    write.tryPost();
                    failures.add(round + ": another thread posted the confined " + write);
                } catch (WrongThreadException expected) {
                    // as it must be
                }
                try {
                    otherBatches.start();   // a second wr_start on the owner's send queue
                    otherBatches.abort();
                    failures.add(round + ": another thread opened a batch on the send queue the owner owns");
                } catch (WrongThreadException expected) {
                    // as it must be
                }
            }
            // Nothing the refused closes did stopped the owner: its posts go on.
            long before = posts.get();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (posts.get() < before + 10 && System.nanoTime() < deadline && !outcome.isDone()) {
                Thread.onSpinWait();
            }
            if (posts.get() < before + 10) {
                failures.add(round + ": the owner stopped posting after the refused closes ("
                        + (outcome.isDone() ? outcome.get() : "no outcome") + ")");
            }
            stop.set(true);
            String result = outcome.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (!result.isEmpty()) {
                failures.add(round + ": " + result);
            }
            assertTrue(owner.join(WAIT), round + ": the owner ended");
            // Its requests closed or its thread ended: any thread may close now.
            try {
                dependency.close();
                p.close();
            } catch (RuntimeException e) {
                failures.add(round + ": closing " + dependency + " once the owner let go threw " + e);
            }
            if (!dependency.isClosed() || !send.isClosed() || !write.isClosed()) {
                failures.add(round + ": " + dependency + " or " + send + " did not close once the owner let go");
            }
            return successes.get();
        } finally {
            p.close();
        }
    }

    /** Closes {@code r} from this thread, which must be refused; a description of what went wrong, or null. */
    private static String refusedClose(NativeResource r) {
        try {
            r.close();
            return "another thread closed " + r + " while a confined request on it was open";
        } catch (WrongThreadException expected) {
            return r.isClosed() ? "the refused close marked " + r + " closed" : null;
        } catch (RuntimeException e) {
            return "closing " + r + " threw " + e;
        }
    }
}
