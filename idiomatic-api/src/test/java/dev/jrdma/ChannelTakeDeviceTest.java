// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link CompletionQueue#take} on a CQ with a completion channel of its own: a virtual thread
 * spins, yields, then sleeps on the channel (request notification, poll again, park until the
 * event) rather than waking up for timed parks. The device-test JVM has two carriers
 * (scripts/device-tests). Each test here can fail: a wait that held its carrier stalls the
 * latch, one that parks for a time is not found in the channel's sleep, one that skipped the
 * poll after the request loses the completion and times out, one that read a shared channel
 * steals the other queue's event.
 */
@DeviceTest
class ChannelTakeDeviceTest {
    private static final int WAITERS = 32;
    private static final Duration LONG = TestDevices.TIMEOUT.multipliedBy(6);

    /**
     * Per waiter a connected RC pair: the sender's completions go to one sink CQ, the receiver's
     * to the waiter's CQ, which has a completion channel of its own; each receiver has
     * {@code receives} receives posted, wrIds 0, 1, ...
     */
    private static final class Pairs {
        final ProtectionDomain pd;
        final CompletionQueue sink;
        final MemoryRegion mr;
        final CompletionChannel[] channels;
        final CompletionQueue[] cqs;
        final QueuePair[] senders;
        private final WorkCompletion sent = new WorkCompletion();

        Pairs(Context context, int n, int receives) {
            pd = context.allocateProtectionDomain();
            sink = context.createCompletionQueue(n + 8);
            mr = pd.allocate(4096);
            channels = new CompletionChannel[n];
            cqs = new CompletionQueue[n];
            senders = new QueuePair[n];
            for (int i = 0; i < n; i++) {
                channels[i] = context.createCompletionChannel();
                cqs[i] = context.createCompletionQueue(receives + 2, channels[i]);
                senders[i] = pd.queuePair(QueuePairType.RC).completionQueue(sink).build();
                QueuePair receiver = pd.queuePair(QueuePairType.RC).completionQueue(cqs[i])
                        .maxWorkRequests(2, receives).build();
                Endpoint s = senders[i].localEndpoint();
                Endpoint r = receiver.localEndpoint();
                senders[i].connect(r);
                receiver.connect(s);
                for (int k = 0; k < receives; k++) {
                    receiver.post(new ReceiveRequest().wrId(k).sge(mr, 0, 64));
                }
            }
        }

        /** Posts a send to waiter {@code i}'s receiver. */
        void send(int i) {
            senders[i].post(new SendRequest().wrId(i).sge(mr, 64, 8));
        }

        /**
         * Sends to waiter {@code i} and waits for the send's completion: Soft-RoCE's responder writes
         * the receive completion before it acknowledges, so the receive is in the waiter's CQ then.
         */
        void sendAndAwaitDelivery(int i) {
            send(i);
            sink.take(sent, LONG, WaitStrategy.busySpin()).checkSuccess();
        }
    }

    /** Whether {@code t} is parked in a completion channel's sleep (its stack, read while unmounted). */
    private static boolean sleepsOnChannel(Thread t) {
        return Arrays.stream(t.getStackTrace()).anyMatch(
                e -> e.getClassName().equals(CompletionChannel.class.getName()) && e.getMethodName().equals("sleep"));
    }

    /** Waits (bounded by {@code limit}) until every thread sleeps on its channel; returns those that do not. */
    private static List<Thread> notSleeping(List<Thread> threads, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        List<Thread> left = new ArrayList<>(threads);
        while (!left.isEmpty() && System.nanoTime() - deadline < 0) {
            left.removeIf(ChannelTakeDeviceTest::sleepsOnChannel);
            Thread.sleep(50);
        }
        return left;
    }

    @Test
    @Exercises({"ibv_req_notify_cq", "ibv_get_cq_event", "ibv_ack_cq_events", "ibv_poll_cq"})
    void moreVirtualThreadsThanCarriersSleepInTakeOnTheirChannelsAndAllComplete() throws Exception {
        try (Context context = TestDevices.device().open()) {
            Pairs s = new Pairs(context, WAITERS, 2);
            // One virtual thread takes the whole path alone first: virtual threads that wait for
            // another thread's class initialisation pin their carrier (a JDK limit).
            Thread warm = Thread.ofVirtual().name("warm-up").start(() -> s.cqs[0].take(new WorkCompletion(), LONG));
            assertTrue(notSleeping(List.of(warm), LONG).isEmpty(), "the warm-up never slept on its channel");
            s.send(0);
            assertTrue(warm.join(LONG));

            VirtualWaiters takers = VirtualWaiters.start("taker", WAITERS, n -> {
                WorkCompletion wc = s.cqs[n].take(new WorkCompletion(), LONG).checkSuccess();
                return wc.opcode() + " " + wc.wrId();
            }, LONG);
            List<Thread> awake = notSleeping(takers.threads, LONG);
            assertEquals(List.of(), awake, "takers not sleeping on their completion channels");
            for (int i = WAITERS - 1; i >= 0; i--) {
                s.send(i);
            }
            takers.joinAll(LONG, "");
            for (int i = 0; i < WAITERS; i++) {
                assertEquals(i == 0 ? "RECV 1" : "RECV 0", takers.result(i), "taker " + i);
            }
        }
    }

    /**
     * A completion that arrives after the last empty poll and before the request for notification
     * raises no event: the wait must poll once more after the request, or it sleeps to its
     * timeout (found sleeping here, a failure). The strategy below makes exactly that happen: the wait asks its {@code parks}
     * right before the request, and it delivers the message then.
     */
    @Test
    @Exercises({"ibv_req_notify_cq", "ibv_poll_cq"})
    void aCompletionBetweenTheLastPollAndTheRequestIsNotLost() throws Exception {
        try (Context context = TestDevices.device().open()) {
            Pairs s = new Pairs(context, 1, 2);
            WaitStrategy deliverThenPark = new WaitStrategy() {
                private boolean delivered;

                @Override
                public void idle(int emptyPolls) {
                    throw new AssertionError("idle step " + emptyPolls + ": the wait should sleep on the channel");
                }

                @Override
                public boolean parks(int emptyPolls) {
                    if (!delivered) {
                        delivered = true;
                        s.sendAndAwaitDelivery(0);
                    }
                    return true;
                }
            };
            AtomicReference<Object> took = new AtomicReference<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    took.set(s.cqs[0].take(new WorkCompletion(), LONG, deliverThenPark).checkSuccess().wrId());
                } catch (RuntimeException | AssertionError e) {
                    took.set(e);
                }
            });
            // Without the poll after the request the take would sleep on the channel (to its
            // timeout, whose last poll finds the completion): it must end without sleeping.
            long deadline = System.nanoTime() + LONG.toNanos();
            while (t.isAlive() && System.nanoTime() - deadline < 0) {
                assertFalse(sleepsOnChannel(t), "the take sleeps on its channel with a completion in its CQ");
                t.join(Duration.ofMillis(10));
            }
            assertFalse(t.isAlive(), "the take did not end");
            assertEquals(0L, took.get(), "the completion that came before the request");
        }
    }

    /** Many messages to one virtual thread: arms left from earlier waits leave stale events, none is lost. */
    @Test
    @Exercises({"ibv_req_notify_cq", "ibv_get_cq_event", "ibv_ack_cq_events"})
    void repeatedTakesSeeEveryCompletionInOrder() throws Exception {
        int rounds = 12;
        try (Context context = TestDevices.device().open()) {
            Pairs s = new Pairs(context, 1, rounds);
            List<Long> seen = new ArrayList<>();
            Thread t = Thread.ofVirtual().start(() -> {
                WorkCompletion wc = new WorkCompletion();
                for (int r = 0; r < rounds; r++) {
                    seen.add(s.cqs[0].take(wc, LONG).checkSuccess().wrId());
                }
            });
            for (int r = 0; r < rounds; r++) {
                s.sendAndAwaitDelivery(0);   // one at a time: the sender's queue holds two
                if (r % 3 == 0) {
                    Thread.sleep(20);   // now and then the taker sleeps on the channel before the next
                }
            }
            assertTrue(t.join(LONG), "the taker saw " + seen);
            List<Long> expected = new ArrayList<>();
            for (long r = 0; r < rounds; r++) {
                expected.add(r);
            }
            assertEquals(expected, seen);
        }
    }

    /** Closing the CQ wakes a take sleeping on its channel, long before the take's timeout. */
    @Test
    void closingTheQueueEndsATakeSleepingOnItsChannel() throws Exception {
        try (Context context = TestDevices.device().open()) {
            Pairs s = new Pairs(context, 1, 2);
            AtomicReference<Object> ended = new AtomicReference<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    ended.set(s.cqs[0].take(new WorkCompletion(), Duration.ofHours(1)));
                } catch (RuntimeException e) {
                    ended.set(e);
                }
            });
            assertEquals(List.of(), notSleeping(List.of(t), LONG), "the taker never slept on its channel");
            s.cqs[0].close();
            assertTrue(t.join(LONG), "the take still sleeps after its CQ was closed");
            assertInstanceOf(IllegalStateException.class, ended.get());
        }
    }

    /**
     * A channel with two CQs is not taken over by a take on one of them: a thread awaiting the
     * channel for the other CQ gets its event, and the take (which parks for a time) its completion.
     */
    @Test
    void aTakeLeavesASharedChannelToItsAwaiter() throws Exception {
        try (Context context = TestDevices.device().open()) {
            Pairs s = new Pairs(context, 1, 2);
            CompletionChannel shared = s.channels[0];
            CompletionQueue other = context.createCompletionQueue(4, shared);
            QueuePair otherSender = s.pd.queuePair(QueuePairType.RC).completionQueue(s.sink).build();
            QueuePair otherReceiver = s.pd.queuePair(QueuePairType.RC).completionQueue(other).build();
            Endpoint a = otherSender.localEndpoint();
            Endpoint b = otherReceiver.localEndpoint();
            otherSender.connect(b);
            otherReceiver.connect(a);
            otherReceiver.post(new ReceiveRequest().wrId(5).sge(s.mr, 0, 64));

            AtomicReference<Object> took = new AtomicReference<>();
            Thread taker = Thread.ofVirtual().start(() -> {
                try {
                    took.set(s.cqs[0].take(new WorkCompletion(), LONG).checkSuccess().wrId());
                } catch (RuntimeException e) {
                    took.set(e);
                }
            });
            other.requestNotification(false);
            AtomicReference<Object> awoke = new AtomicReference<>();
            Thread awaiter = Thread.ofVirtual().start(() -> {
                try {
                    awoke.set(shared.await(LONG));
                } catch (RuntimeException e) {
                    awoke.set(e);
                }
            });
            Thread.sleep(200);   // both waiting: not needed for the outcome, it makes a steal likelier
            assertFalse(sleepsOnChannel(taker), "the take sleeps on a channel it shares");
            otherSender.post(new SendRequest().wrId(9).sge(s.mr, 64, 8));
            assertTrue(awaiter.join(LONG));
            assertEquals(other, awoke.get(), "the awaiter got the other CQ's event");
            s.send(0);
            assertTrue(taker.join(LONG));
            assertEquals(0L, took.get());
        }
    }
}
