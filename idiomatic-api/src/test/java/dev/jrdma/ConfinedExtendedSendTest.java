// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link PreparedExtendedSend#ofConfined} over the stub provider's {@code ibv_wr_*} builders:
 * the rules of the classic confined requests (ConfinedPreparedRequestTest) hold for it, every
 * builder the CLI's loops call reaches the provider, and its post still claims the queue pair's
 * send queue, which a confined request does not own, unless its thread owns the send queue
 * ({@link ExtendedSendQueue#ownSendQueue()}), whose refusals are tested here too.
 */
class ConfinedExtendedSendTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Throwable onOtherThread(Runnable action) throws Exception {
        return ConfinedPreparedRequestTest.onOtherThread(action);
    }

    @Test
    void aConfinedExtendedSendPostsOnItsThread() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(f.sq(),
                new SendRequest().wrId(3).sge(mr, 0, 48).signaled(true))) {
            send.wrId(30).length(40).post();
            MemorySegment wqe = ExtendedStubProviderBench.lastWqe(f);
            assertEquals(30, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertEquals(rdma_h.IBV_WR_SEND(), wqe.get(JAVA_INT, StubProvider.WQE_OPCODE));
            assertEquals(40, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH));
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.base().sendCq().poll(wc));
            assertEquals(30, wc.wrId());
            assertTrue(send.tryPost());
            assertTrue(send.isAccessibleBy(Thread.currentThread()));
            assertFalse(send.isAccessibleBy(Thread.ofPlatform().unstarted(() -> { })));
            assertTrue(f.qp().dependents().contains(send), "a dependent of its queue pair, as a shared one");
        }
    }

    @Test
    void anotherThreadCannotPostItNorCloseItOrWhatItDependsOn() throws Exception {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        PreparedExtendedSend send = PreparedExtendedSend.ofConfined(f.sq(), new SendRequest().sge(mr, 0, 8));
        try {
            Throwable post = onOtherThread(send::post);
            assertInstanceOf(WrongThreadException.class, post);
            assertTrue(post.getMessage().startsWith("post of " + send), post.getMessage());
            assertTrue(post.getMessage().contains("confined to thread '" + Thread.currentThread().getName() + "'"),
                    post.getMessage());
            assertInstanceOf(WrongThreadException.class, onOtherThread(send::tryPost));
            for (Supplier<NativeResource> r : List.<Supplier<NativeResource>>of(() -> send, f::qp, () -> mr,
                    () -> mr.protectionDomain(), () -> f.base().context())) {
                NativeResource target = r.get();
                Throwable close = onOtherThread(target::close);
                assertInstanceOf(WrongThreadException.class, close, String.valueOf(target));
                assertTrue(close.getMessage().startsWith(target.toString()), close.getMessage());
                assertFalse(target.isClosed(), target + " is still open");
            }
            send.post();   // still posts on its own thread
        } finally {
            send.close();
        }
        assertTrue(send.isClosed());
        IllegalStateException closed = assertThrows(IllegalStateException.class, send::post);
        assertEquals(IllegalStateException.class, closed.getClass(), "on its own thread a closed request is closed");
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }

    @Test
    void aRequestOfAThreadThatEndedCanBeClosedByAnyThread() throws Exception {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        CompletableFuture<PreparedExtendedSend> made = new CompletableFuture<>();
        Thread owner = Thread.ofPlatform().name("owner").start(() -> made.complete(
                PreparedExtendedSend.ofConfined(f.sq(), new SendRequest().sge(f.base().mr(), 0, 8))));
        PreparedExtendedSend send = made.get(30, TimeUnit.SECONDS);
        assertTrue(owner.join(WAIT));
        assertThrows(WrongThreadException.class, send::post, "still not this thread's to post");
        send.close();
        assertTrue(send.isClosed());
        assertFalse(f.qp().dependents().contains(send));
    }

    @Test
    void itsPostStillClaimsTheSendQueueInItsOwnThread() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(f.sq(), new SendRequest().sge(mr, 0, 8))) {
            f.sq().start().wrId(5).signaled(true).send().sge(mr, 0, 8);
            // A second ibv_wr_start would spin on the provider's send queue lock, in this thread, forever.
            IllegalStateException e = assertThrows(IllegalStateException.class, send::post);
            assertTrue(e.getMessage().contains("this thread"), e.getMessage());
            f.sq().complete();
            send.wrId(6).post();
            assertEquals(6, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
        }
    }

    /**
     * Another thread's batch on the same queue pair: the confined post waits for its
     * wr_complete. Without the claim both sections would run at once; over the stub the batch's
     * completion would then be lost (the post's wr_start moves the batch's start).
     */
    @Test
    void itsPostWaitsForAnotherThreadsBatchOnTheQueuePair() throws Exception {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue other = new ExtendedSendQueue(f.qp(), f.qpEx().address());
        CountDownLatch open = new CountDownLatch(1);
        AtomicBoolean completed = new AtomicBoolean();
        Thread batch = Thread.ofPlatform().name("batch").start(() -> {
            other.start().wrId(1).signaled(true).send().sge(mr, 0, 8);
            open.countDown();
            try {
                TimeUnit.MILLISECONDS.sleep(200);   // long enough for the post below to reach its claim
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            completed.set(true);
            other.complete();
        });
        try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(f.sq(),
                new SendRequest().wrId(2).sge(mr, 8, 8).signaled(true))) {
            assertTrue(open.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            send.post();
            assertTrue(completed.get(), "the post ran while another thread's batch was open");
        }
        assertTrue(batch.join(WAIT));
        WorkCompletion wc = new WorkCompletion();
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(1, wc.wrId());
        assertEquals(1, f.base().sendCq().poll(wc));
        assertEquals(2, wc.wrId());
    }

    /**
     * Each operation the loops post, with the values a wrong argument register, a swapped pair
     * or a 32-bit truncation would change: a remote address with its high bits set, an rkey and
     * an immediate with bit 31 set, distinct compare and swap operands; and the values the
     * setters change after prepare (wr_id, signalled, immediate, length, remote offset), which
     * the one-call post reads from its block. Both post paths run it (the build's second test
     * run sets -Djrdma.extendedPost.trampoline=false).
     */
    @Test
    void everyBuilderTheLoopsCallReachesTheProvider() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16, SendOp.SEND, SendOp.SEND_WITH_IMM,
                SendOp.RDMA_WRITE, SendOp.RDMA_WRITE_WITH_IMM, SendOp.RDMA_READ, SendOp.ATOMIC_CMP_AND_SWP,
                SendOp.ATOMIC_FETCH_AND_ADD);
        MemoryRegion mr = f.base().mr();
        RemoteMemory remote = new RemoteMemory(0xF0E1_D2C3_B4A5_9680L, 4096, 0x8765_4321);
        long compare = 0x8000_0000_0000_0003L;
        long swap = 0x7FFF_FFFF_FFFF_FFFCL;
        int imm = 0x89AB_CDEF;
        record Case(SendRequest request, int opcode, boolean imm, boolean remote, boolean atomic, boolean inline) {}
        List<Case> cases = List.of(
                new Case(new SendRequest().sge(mr, 0, 16), rdma_h.IBV_WR_SEND(), false, false, false, false),
                new Case(new SendRequest().opcode(SendOpcode.SEND_WITH_IMM).immediateData(7).sge(mr, 0, 16),
                        rdma_h.IBV_WR_SEND_WITH_IMM(), true, false, false, false),
                new Case(new SendRequest().opcode(SendOpcode.RDMA_WRITE).sge(mr, 0, 16).remote(remote),
                        rdma_h.IBV_WR_RDMA_WRITE(), false, true, false, false),
                new Case(new SendRequest().opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediateData(9).sge(mr, 0, 16)
                        .remote(remote), rdma_h.IBV_WR_RDMA_WRITE_WITH_IMM(), true, true, false, false),
                new Case(new SendRequest().opcode(SendOpcode.RDMA_READ).sge(mr, 0, 16).remote(remote),
                        rdma_h.IBV_WR_RDMA_READ(), false, true, false, false),
                new Case(new SendRequest().opcode(SendOpcode.ATOMIC_CMP_AND_SWP).sge(mr, 0, 8).remote(remote)
                        .compareAdd(compare).swap(swap), rdma_h.IBV_WR_ATOMIC_CMP_AND_SWP(), false, true, true, false),
                new Case(new SendRequest().opcode(SendOpcode.ATOMIC_FETCH_AND_ADD).sge(mr, 0, 8).remote(remote)
                        .compareAdd(compare), rdma_h.IBV_WR_ATOMIC_FETCH_AND_ADD(), false, true, true, false),
                new Case(new SendRequest().sge(mr, 32, 16).inline(true), rdma_h.IBV_WR_SEND(), false, false, false,
                        true));
        long wrId = 0x1234_5678_9ABC_DEF0L;
        for (Case c : cases) {
            boolean signaled = c.opcode() % 2 == 0;
            try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(f.sq(), c.request().signaled(false))) {
                send.wrId(++wrId).signaled(signaled);
                if (c.imm()) {
                    send.immediateData(imm);
                }
                if (c.remote()) {
                    send.remoteOffset(64);
                }
                if (!c.atomic()) {
                    send.length(12);
                }
                send.post();
                MemorySegment wqe = ExtendedStubProviderBench.lastWqe(f);
                String what = c.request().opcode() + (c.inline() ? ", inline" : "");
                assertEquals(wrId, wqe.get(JAVA_LONG, StubProvider.WQE_WR_ID), what);
                assertEquals(c.opcode(), wqe.get(JAVA_INT, StubProvider.WQE_OPCODE), what);
                int flags = (signaled ? rdma_h.IBV_SEND_SIGNALED() : 0) | (c.inline() ? rdma_h.IBV_SEND_INLINE() : 0);
                assertEquals(flags, wqe.get(JAVA_INT, StubProvider.WQE_FLAGS), what);
                assertEquals(c.imm() ? imm : 0, Integer.reverseBytes(wqe.get(JAVA_INT, StubProvider.WQE_IMM_DATA)),
                        what);
                assertEquals(1, wqe.get(JAVA_INT, StubProvider.WQE_NUM_SGE), what);
                assertEquals(c.inline() ? 0 : mr.lkey(), wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LKEY), what);
                assertEquals(mr.address() + (c.inline() ? 32 : 0), wqe.get(JAVA_LONG, StubProvider.WQE_SGE0_ADDR), what);
                assertEquals(c.atomic() ? 8 : 12, wqe.get(JAVA_INT, StubProvider.WQE_SGE0_LENGTH), what);
                if (c.remote()) {
                    MemorySegment r = ExtendedStubProviderBench.lastRemote(f);
                    assertEquals(remote.address() + 64, r.get(JAVA_LONG, ExtendedStubProviderBench.REMOTE_ADDR), what);
                    assertEquals(remote.rkey(), r.get(JAVA_INT, ExtendedStubProviderBench.REMOTE_RKEY), what);
                    assertEquals(c.atomic() ? compare : 0, r.get(JAVA_LONG, ExtendedStubProviderBench.REMOTE_COMPARE_ADD),
                            what);
                    boolean cmpSwp = c.opcode() == rdma_h.IBV_WR_ATOMIC_CMP_AND_SWP();
                    assertEquals(cmpSwp ? swap : 0, r.get(JAVA_LONG, ExtendedStubProviderBench.REMOTE_SWAP), what);
                }
                WorkCompletion wc = new WorkCompletion();
                assertEquals(signaled ? 1 : 0, f.base().sendCq().poll(wc), what);
                if (signaled) {
                    assertEquals(wrId, wc.wrId(), what);
                }
            }
        }
    }

    /** The post path is the one this test run asks for: the one-call routine on x86-64 Linux unless turned off. */
    @Test
    void postsTakeThePathThisRunAsksFor() {
        String arch = System.getProperty("os.arch");
        boolean x86Linux = (arch.equals("amd64") || arch.equals("x86_64")) && System.getProperty("os.name").equals("Linux");
        boolean off = "false".equals(System.getProperty("jrdma.extendedPost.trampoline"));
        assertEquals(x86Linux && !off, ExtendedPostRequest.ONE_CALL);
    }

    /** With the send queue owned by this thread too (the CLI's form: no guard word, no claim), and claimed. */
    @Test
    void confinedExtendedPostsAllocateNothing() {
        for (boolean own : new boolean[] {true, false}) {
            ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(1024);
            ExtendedSendQueue sq = own ? f.sq().ownSendQueue() : f.sq();
            try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(sq,
                    new SendRequest().sge(f.base().mr(), 0, 64).signaled(false))) {
                Allocations.Steady run = Allocations.steadyState(i -> {
                    send.wrId(i).post();
                    return i;
                });
                assertEquals(0, run.bytes(), "bytes allocated by 20000 confined extended posts, owned " + own);
            }
            assertEquals(own ? Thread.currentThread() : null, sq.sendQueueOwner());
        }
    }

    /**
     * The owner's send queue: its confined and shared posts and its batches run; every other
     * thread's batch start, post, ownSendQueue and releaseSendQueue on the queue pair is refused
     * at once, naming the owner, and changes nothing; once released, another thread's batch runs.
     */
    @Test
    void anOwnedSendQueueRefusesEveryOtherThreadAtOnce() throws Exception {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue sq = f.sq().ownSendQueue();
        assertEquals(Thread.currentThread(), sq.sendQueueOwner());
        assertEquals(sq, sq.ownSendQueue(), "owning it again changes nothing");
        ExtendedSendQueue other = new ExtendedSendQueue(f.qp(), f.qpEx().address());
        try (PreparedExtendedSend confined = PreparedExtendedSend.ofConfined(sq, new SendRequest().sge(mr, 0, 8));
             PreparedExtendedSend shared = PreparedExtendedSend.of(sq, new SendRequest().sge(mr, 0, 8))) {
            confined.wrId(1).post();
            shared.wrId(2).post();
            sq.start().wrId(3).send().sge(mr, 0, 8).complete();
            assertEquals(3, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            String owner = "belongs to thread '" + Thread.currentThread().getName() + "'";
            for (Runnable r : List.<Runnable>of(other::start, shared::post, () -> other.ownSendQueue(),
                    other::releaseSendQueue)) {
                Throwable refused = onOtherThread(r);
                assertInstanceOf(WrongThreadException.class, refused);
                assertTrue(refused.getMessage().contains(owner), refused.getMessage());
            }
            assertFalse(other.isStarted());
            assertEquals(Thread.currentThread(), sq.sendQueueOwner(), "still this thread's");
            confined.wrId(4).post();
            assertEquals(4, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            sq.releaseSendQueue();
            assertEquals(null, sq.sendQueueOwner());
            assertEquals(null, onOtherThread(() -> other.start().wrId(5).send().sge(mr, 0, 8).complete()));
            assertEquals(5, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            confined.wrId(6).post();   // claimed again
            assertEquals(6, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
        }
    }

    /**
     * The owner's own batch left open: its posts on the owned send queue still refuse (a second
     * wr_start would spin in the provider's lock forever), and it cannot give the send queue back
     * with the batch open.
     */
    @Test
    void theOwnersOpenBatchStillRefusesItsPosts() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue sq = f.sq().ownSendQueue();
        ExtendedSendQueue second = new ExtendedSendQueue(f.qp(), f.qpEx().address());
        try (PreparedExtendedSend confined = PreparedExtendedSend.ofConfined(sq, new SendRequest().sge(mr, 0, 8));
             PreparedExtendedSend shared = PreparedExtendedSend.of(sq, new SendRequest().sge(mr, 0, 8))) {
            sq.start().wrId(7).signaled(true).send().sge(mr, 0, 8);
            for (Runnable r : List.<Runnable>of(confined::post, shared::post, second::start, sq::releaseSendQueue)) {
                IllegalStateException e = assertThrows(IllegalStateException.class, r::run);
                assertTrue(e.getMessage().contains("this thread"), e.getMessage());
            }
            sq.complete();
            confined.wrId(8).post();
            assertEquals(8, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.base().sendCq().poll(wc));
            assertEquals(7, wc.wrId(), "the batch's request was posted, not overwritten by a post inside it");
        }
        sq.releaseSendQueue();
    }

    /**
     * The owner's posts compare one word (SendQueueClaim.ready) for the refusal word and the
     * claim: a transition that refuses sends clears it, so the post after it is refused and
     * builds nothing, though the posts before it had armed the one-compare path; once the queue
     * pair takes sends again, the next post arms it again.
     */
    @Test
    void anOwnersPostIsRefusedOnceTheQueuePairRefusesSends() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue sq = f.sq().ownSendQueue();
        SendQueueClaim claim = f.qp().posts.extendedClaim;
        try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(sq,
                new SendRequest().sge(mr, 0, 8).signaled(false))) {
            send.wrId(1).post();
            assertTrue(claim.isReady(Thread.currentThread()), "the owner's claimed post armed the one-compare path");
            send.wrId(2).post();
            for (QueuePairState refusing : List.of(QueuePairState.ERR, QueuePairState.RTR, QueuePairState.INIT,
                    QueuePairState.RESET)) {
                f.qp().connector.setState(refusing);
                IllegalStateException e = assertThrows(IllegalStateException.class, send.wrId(3)::post);
                assertTrue(e.getMessage().startsWith("cannot post work request wr_id 3"), e.getMessage());
                assertEquals(2, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID),
                        "the refused post in " + refusing + " built nothing");
                f.qp().connector.setState(QueuePairState.RTS);
                send.wrId(4).post();   // claimed, and armed again
                send.wrId(2).post();
                assertEquals(2, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            }
            f.qp().connector.setState(QueuePairState.SQD);   // takes sends: the armed path stays
            assertTrue(claim.isReady(Thread.currentThread()));
        }
    }

    /**
     * Arming stores the owner into the word and then reads the refusal word, clearing the word
     * when sends are refused: the half of the ordering argument a transition racing with the
     * arming needs (SendQueueClaim's class comment). And giving the send queue back, or the
     * owner opening a batch, clears it.
     */
    @Test
    void theOneCompareWordIsArmedOnlyForAnIdleOwnerOfAQueuePairThatTakesSends() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        QueuePair qp = f.qp();
        SendQueueClaim claim = qp.posts.extendedClaim;
        Thread me = Thread.currentThread();
        claim.arm(qp);
        assertFalse(claim.isReady(me), "not the owner");
        ExtendedSendQueue sq = f.sq().ownSendQueue();
        qp.refused = QueuePair.NO_SEND;   // as a transition's first write, before its sendsRefused()
        claim.arm(qp);
        assertFalse(claim.isReady(me), "armed though the refusal word says no sends");
        qp.connector.setState(QueuePairState.RTS);
        claim.arm(qp);
        assertTrue(claim.isReady(me));
        sq.start().wrId(5).send().sge(mr, 0, 8);
        assertFalse(claim.isReady(me), "ready inside the owner's own batch");
        claim.arm(qp);
        assertFalse(claim.isReady(me), "armed inside the owner's own batch");
        sq.complete();
        claim.arm(qp);
        assertTrue(claim.isReady(me));
        sq.releaseSendQueue();
        assertFalse(claim.isReady(me), "ready after the send queue was given back");
    }

    /**
     * The owner's batch, opened after its posts armed the one-compare path: its next post still
     * refuses (a second wr_start inside the batch would spin on the provider's lock forever).
     */
    @Test
    void theOwnersBatchAfterItsPostsStillRefusesThem() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue sq = f.sq().ownSendQueue();
        try (PreparedExtendedSend confined = PreparedExtendedSend.ofConfined(sq,
                new SendRequest().sge(mr, 0, 8).signaled(false))) {
            confined.wrId(1).post();
            confined.wrId(2).post();
            sq.start().wrId(7).signaled(true).send().sge(mr, 0, 8);
            IllegalStateException e = assertThrows(IllegalStateException.class, confined::post);
            assertTrue(e.getMessage().contains("this thread"), e.getMessage());
            sq.complete();
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.base().sendCq().poll(wc));
            assertEquals(7, wc.wrId(), "the batch's request was posted, not overwritten by a post inside it");
            confined.wrId(8).post();
            confined.wrId(9).post();
            assertEquals(9, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
        }
    }

    /** Memory of the caller's arena, closed under an owner's armed posts: the next post refuses. */
    @Test
    void anOwnersPostRefusesOnceTheCallersArenaClosed() {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        ExtendedSendQueue sq = f.sq().ownSendQueue();
        Arena arena = Arena.ofConfined();
        MemoryRegion callers = MemoryRegion.overStubProvider(f.base().pd(), f.base().mr().handle(), arena.allocate(64));
        try (PreparedExtendedSend send = PreparedExtendedSend.ofConfined(sq,
                new SendRequest().sge(callers, 0, 8).signaled(false))) {
            send.wrId(1).post();
            send.wrId(2).post();
            arena.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, send.wrId(3)::post);
            assertTrue(e.getMessage().contains("arena"), e.getMessage());
            assertEquals(2, ExtendedStubProviderBench.lastWqe(f).get(JAVA_LONG, StubProvider.WQE_WR_ID));
        }
    }

    /**
     * An owner that ended: another thread's claim gives the send queue back to all (or that
     * thread takes it); an owner that ended inside a batch leaves the provider's lock held, so
     * every later start is refused rather than spinning in it.
     */
    @Test
    void anEndedOwnersSendQueueGoesBackUnlessItEndedInsideABatch() throws Exception {
        ExtendedStubProviderBench.Fixture f = ExtendedStubProviderBench.open(16);
        MemoryRegion mr = f.base().mr();
        ExtendedSendQueue sq = f.sq();
        assertEquals(null, onOtherThread(sq::ownSendQueue));
        assertFalse(sq.sendQueueOwner().isAlive());
        sq.start().wrId(9).send().sge(mr, 0, 8).complete();
        assertEquals(null, sq.sendQueueOwner(), "given back to all");
        assertEquals(null, onOtherThread(sq::ownSendQueue));
        sq.ownSendQueue();
        assertEquals(Thread.currentThread(), sq.sendQueueOwner(), "taken over");
        sq.releaseSendQueue();

        ExtendedSendQueue other = new ExtendedSendQueue(f.qp(), f.qpEx().address());
        assertEquals(null, onOtherThread(() -> other.ownSendQueue().start().send().sge(mr, 0, 8)));
        for (Runnable r : List.<Runnable>of(sq::start, sq::ownSendQueue, sq::releaseSendQueue)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, r::run);
            assertTrue(e.getMessage().contains("ended inside"), e.getMessage());
        }
    }
}
