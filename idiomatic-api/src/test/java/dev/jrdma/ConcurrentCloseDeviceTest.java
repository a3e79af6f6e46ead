// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.cm.AddressInfo;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.MulticastJoin;
import dev.jrdma.testing.DeviceTest;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Closing any resource while other threads post, poll and wait on it or on its dependents: the
 * calls complete or throw IllegalStateException, and the JVM never crashes. Before close()
 * waited for the calls inside a resource, this killed the JVM with SIGSEGV in most rounds
 * (a CQ destroyed under ibv_poll_cq, a QP under ibv_post_send); scripts/test fails on the
 * crash log such a JVM leaves. Prepared requests ({@link PreparedSend}, {@link PreparedReceive}, {@link PreparedPoll})
 * are posted alongside the one-off ones.
 */
@DeviceTest
class ConcurrentCloseDeviceTest {
    private static final int ROUNDS = 210;

    /** What the round closes first, at a random moment while the workers run. */
    enum Target { CONTEXT, PROTECTION_DOMAIN, COMPLETION_QUEUE, QUEUE_PAIR, MEMORY_REGION, SHARED_RECEIVE_QUEUE,
        COMPLETION_CHANNEL }

    /** One round's resources: a sender QP, a receiver QP on an SRQ (tied to the CQ), one CQ on a channel. */
    private static final class Round implements AutoCloseable {
        final Context context = TestDevices.device().open();
        final CompletionChannel channel;
        final CompletionQueue cq;
        final ProtectionDomain pd;
        final MemoryRegion mr;
        final SharedReceiveQueue srq;
        final QueuePair sender;
        final QueuePair receiver;
        /**
         * A queue pair for the extended post API and its peer (on the SRQ): ibv_post_send and
         * ibv_wr_start take the same send queue lock in critical downcalls, so the extended
         * posts get a queue pair of their own rather than share the sender with other threads.
         */
        final QueuePair extended;
        final QueuePair extendedPeer;

        Round() {
            try {
                channel = context.createCompletionChannel();
                cq = context.createCompletionQueue(256, channel);
                pd = context.allocateProtectionDomain();
                mr = pd.allocate(4096, Loopback.ALL);
                // Through ibv_create_srq_ex with the CQ (the provider's create_srq_ex): closing the
                // CQ then closes the SRQ too, one more edge of the graph under concurrent close.
                srq = pd.sharedReceiveQueue().maxWorkRequests(64).maxSges(1).completionQueue(cq).build();
                sender = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxInlineData(64).maxWorkRequests(64, 1)
                        .build();
                receiver = pd.queuePair(QueuePairType.RC).completionQueue(cq).sharedReceiveQueue(srq).build();
                TestDevices.connectEachOther(sender, receiver);
                extended = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxInlineData(64)
                        .maxWorkRequests(64, 1).extendedPost(SendOp.SEND).build();
                extendedPeer = pd.queuePair(QueuePairType.RC).completionQueue(cq).sharedReceiveQueue(srq).build();
                TestDevices.connectEachOther(extended, extendedPeer);
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

    @Test
    void closingAnyResourceWhileOthersPostPollAndWaitThrowsIllegalStateNeverCrashes() throws Exception {
        Map<Target, Integer> roundsBy = new EnumMap<>(Target.class);
        CloseStress stress = new CloseStress();
        stress.rounds("round", ROUNDS, Target.values(), 3_000, target -> {
            roundsBy.merge(target, 1, Integer::sum);
            runRound(stress, target);
        }).assertWorkersEndedCleanly(4);
        assertEquals(Target.values().length, roundsBy.size());
    }

    /** What an rdma_cm round closes first: the kinds of rdma_cm object, and the channel owning them all. */
    enum CmTarget { EVENT_CHANNEL, DATAGRAM_ID, MULTICAST_GROUP, ENDPOINT, QUEUE_PAIR }

    private static final int CM_ROUNDS = 10;

    /**
     * The rdma_cm objects: a datagram id joined to a multicast group whose UD queue pair sends to
     * the group, a passive endpoint (a synchronous id, waited for on its own channel) and a
     * listening datagram id, each waited on by a thread, closed in turn while the others run.
     */
    @Test
    void closingRdmaCmObjectsWhileOthersWaitAndSendNeverCrashes() throws Exception {
        java.net.Inet4Address address = TestDevices.ipv4Address();
        java.net.InetAddress group = java.net.InetAddress.getByName("239.0.35.2");
        AddressInfo passive = AddressInfo.resolve(address.getHostAddress(), "0", true, QueuePairType.RC).get(0);
        CloseStress stress = new CloseStress();
        stress.rounds("rdma_cm round", CM_ROUNDS, CmTarget.values(), 3_000, target -> {
            CmEventChannel channel = CmEventChannel.create();
            try {
                CmId ud = channel.createDatagramId();
                ud.bind(new java.net.InetSocketAddress(address, 0));
                ud.resolveAddress(new java.net.InetSocketAddress(group, 0), TestDevices.TIMEOUT);
                ProtectionDomain pd = ud.context().allocateProtectionDomain();
                CompletionQueue cq = ud.context().createCompletionQueue(256);
                QueuePair qp = ud.createQueuePair(pd.queuePair(QueuePairType.UD).completionQueue(cq)
                        .maxWorkRequests(64, 64));
                MemoryRegion mr = pd.allocate(4096);
                MulticastJoin joined = MulticastJoin.join(ud, group, TestDevices.TIMEOUT);
                AddressHandle ah = joined.destination().createAddressHandle(pd);
                CmId endpoint = channel.createEndpoint(passive);
                endpoint.listen(1);
                CmId udListener = channel.createDatagramId();
                udListener.bind(new java.net.InetSocketAddress(address, 0));
                udListener.listen(1);
                SendRequest send = new SendRequest().wrId(1).sge(mr, 0, 32)
                        .datagram(ah, joined.destination().qpNumber(), joined.destination().qkey());
                ReceiveRequest receive = new ReceiveRequest().wrId(2).sge(mr, 1024, 1024);
                WorkCompletions batch = new WorkCompletions(16);
                AutoCloseable first = switch (target) {
                    case EVENT_CHANNEL -> channel;
                    case DATAGRAM_ID -> ud;
                    case MULTICAST_GROUP -> joined;
                    case ENDPOINT -> endpoint;
                    case QUEUE_PAIR -> qp;
                };
                List<CloseStress.Step> steps = List.of(
                        () -> qp.tryPost(send),
                        () -> qp.tryPost(receive),
                        () -> cq.poll(batch),
                        () -> awaitQuietly(() -> endpoint.awaitConnectRequest(Duration.ofMillis(2))),
                        () -> awaitQuietly(() -> udListener.awaitConnectRequest(Duration.ofMillis(2))));
                stress.closeWhileRunning(steps, first, channel);
            } finally {
                channel.close();
            }
        }).assertWorkersEndedCleanly(4);
    }

    private static void awaitQuietly(Runnable wait) {
        try {
            wait.run();
        } catch (RdmaTimeoutException quiet) {
            // nothing to take in 2 ms: the loop waits again
        }
    }

    private static void runRound(CloseStress stress, Target target) throws Exception {
        Round r = new Round();
        SendRequest send = new SendRequest().wrId(1).opcode(SendOpcode.SEND).sge(r.mr, 0, 32).inline(true)
                .signaled(true);
        ReceiveRequest receive = new ReceiveRequest().wrId(2).sge(r.mr, 1024, 1024);
        WorkCompletions batch = new WorkCompletions(16);
        // Prepared twins of the same requests, posted by the same workers (one thread per queue):
        // closing the QP, SRQ, region or anything above them must make their next post throw too.
        PreparedSend preparedSend = PreparedSend.of(r.sender, send);
        PreparedReceive preparedReceive = PreparedReceive.of(r.srq, receive);
        PreparedPoll preparedPoll = PreparedPoll.of(r.cq);
        // The same send prepared for the extended post API (wr_start .. wr_complete per post).
        PreparedExtendedSend preparedExtended = PreparedExtendedSend.of(ExtendedSendQueue.of(r.extended), send);
        List<CloseStress.Step> steps = List.of(
                () -> {
                    r.sender.tryPost(send);
                    preparedSend.tryPost();
                },
                // A second thread on the same prepared send: one of the two posts through the
                // solo guard, the other through the counted one; a close must wait out both.
                preparedSend::tryPost,
                preparedExtended::tryPost,
                () -> {
                    r.srq.tryPost(receive);
                    preparedReceive.tryPost();
                },
                () -> {
                    r.cq.poll(batch);
                    preparedPoll.poll();
                },
                () -> {
                    r.cq.requestNotification(false);
                    try {
                        r.channel.await(Duration.ofMillis(2));
                    } catch (RdmaTimeoutException quiet) {
                        // no completion in 2 ms: the loop waits again
                    }
                });
        // The first close is the target's; whatever it left running, closing the context ends it.
        stress.closeWhileRunning(steps, r.target(target), r);
    }

    /** What a round of the surface objects closes first: a type 2 window bound by work requests, a multicast membership. */
    enum SurfaceTarget { CONTEXT, PROTECTION_DOMAIN, MEMORY_WINDOW, MEMORY_REGION, BINDING_QUEUE_PAIR, UD_QUEUE_PAIR,
        MEMBERSHIP }

    private static final int SURFACE_ROUNDS = 70;
    private static final java.util.Set<Access> BINDABLE = java.util.EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND);

    /**
     * The same, for the objects of the verbs-surface work: a type 2 window that one thread binds
     * and invalidates with work requests (BIND_MW then LOCAL_INV, chained) while another polls,
     * and a multicast membership that a third attaches and detaches, while the round closes one
     * of them or what they depend on.
     */
    @Test
    void closingWindowsAndMembershipsWhileOthersBindAndAttachThrowsIllegalStateNeverCrashes() throws Exception {
        MulticastGroup group = MulticastGroup.ofIp(java.net.InetAddress.getByName("239.7.7.7"));
        MulticastGroup otherGroup = MulticastGroup.ofIp(java.net.InetAddress.getByName("239.7.7.8"));
        CloseStress stress = new CloseStress();
        stress.rounds("surface round", SURFACE_ROUNDS, SurfaceTarget.values(), 3_000, target -> {
            try (Context context = TestDevices.device().open()) {
                ProtectionDomain pd = context.allocateProtectionDomain();
                CompletionQueue cq = context.createCompletionQueue(512);
                MemoryRegion mr = pd.allocate(4096, BINDABLE);
                QueuePair a = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
                QueuePair b = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(64, 1).build();
                TestDevices.connectEachOther(a, b);
                QueuePair ud = pd.queuePair(QueuePairType.UD).completionQueue(cq).build();
                MemoryWindow mw = pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
                // Another group than the worker's: the provider keeps one attachment per QP and group.
                MulticastMembership first = ud.attachMulticast(otherGroup);
                SendRequest inv = new SendRequest().wrId(2).opcode(SendOpcode.LOCAL_INV);
                SendRequest bind = new SendRequest().wrId(1).opcode(SendOpcode.BIND_MW)
                        .bind(mw, mr, 0, 64, java.util.EnumSet.of(Access.REMOTE_READ)).next(inv);
                WorkCompletions batch = new WorkCompletions(16);
                List<CloseStress.Step> steps = List.of(
                        () -> {
                            inv.invalidate(MemoryWindow.nextRkey(mw.rkey()));
                            try {
                                b.tryPost(bind);
                            } catch (RdmaException e) {
                                // The send queue frees one slot at a time: with one left, the bind
                                // fits and its invalidate does not (ENOMEM, documented for tryPost).
                                if (e.errno() != Errno.ENOMEM) {
                                    throw e;
                                }
                            }
                        },
                        () -> cq.poll(batch),
                        () -> ud.attachMulticast(group).detach(),
                        () -> mw.remote());
                AutoCloseable closeFirst = switch (target) {
                    case CONTEXT -> context;
                    case PROTECTION_DOMAIN -> pd;
                    case MEMORY_WINDOW -> mw;
                    case MEMORY_REGION -> mr;
                    case BINDING_QUEUE_PAIR -> b;
                    case UD_QUEUE_PAIR -> ud;
                    case MEMBERSHIP -> first;
                };
                stress.closeWhileRunning(steps, closeFirst, context);
            }
        }).assertWorkersEndedCleanly(4);
    }
}
