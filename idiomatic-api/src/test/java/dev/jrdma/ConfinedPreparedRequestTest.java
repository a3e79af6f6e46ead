// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Prepared requests confined to their thread ({@code ofConfined}) over the stub provider: they
 * post as a shared one does on their own thread, and everything another thread tries on them,
 * or on what they depend on, is refused with {@link WrongThreadException} before anything
 * changes. Closes on the owner thread (which destroy verbs objects, not possible over the stub)
 * are PreparedRequestDeviceTest's and ConcurrentCloseDeviceTest's.
 */
class ConfinedPreparedRequestTest {

    /** Runs {@code action} on a new platform thread and returns what it threw (null if nothing); ConfinedExtendedSendTest's too. */
    static Throwable onOtherThread(Runnable action) throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name("other").start(() -> {
            try {
                action.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        assertTrue(t.join(java.time.Duration.ofSeconds(30)), "the other thread ended");
        return thrown.get();
    }

    @Test
    void confinedRequestsPostOnTheirThreadAsSharedOnesDo() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        try (PreparedSend send = PreparedSend.ofConfined(f.qp(), new SendRequest().wrId(4).sge(f.mr(), 0, 32));
             PreparedReceive recv = PreparedReceive.ofConfined(f.qp(), new ReceiveRequest().wrId(5).sge(f.mr(), 64, 64))) {
            send.wrId(40).post();
            assertEquals(40, StubProvider.lastWqe(f, true).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            assertTrue(recv.length(16).tryPost());
            WorkCompletion wc = new WorkCompletion();
            assertEquals(1, f.receiveCq().poll(wc));
            assertEquals(5, wc.wrId());
            assertEquals(16, wc.byteLength());
            assertTrue(send.isAccessibleBy(Thread.currentThread()));
            assertTrue(f.qp().dependents().contains(send), "a dependent of its queue pair, as a shared one");
        }
    }

    @Test
    void anotherThreadCannotPostOrCloseIt() throws Exception {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        PreparedSend send = PreparedSend.ofConfined(f.qp(), new SendRequest().wrId(1).sge(f.mr(), 0, 8));
        PreparedReceive recv = PreparedReceive.ofConfined(f.qp(), new ReceiveRequest().sge(f.mr(), 0, 8));
        try {
            Throwable post = onOtherThread(send::post);
            assertInstanceOf(WrongThreadException.class, post);
            assertTrue(post.getMessage().contains("confined to thread '" + Thread.currentThread().getName() + "'"),
                    post.getMessage());
            assertTrue(post.getMessage().contains("from thread 'other'"), post.getMessage());
            assertInstanceOf(WrongThreadException.class, onOtherThread(recv::tryPost));

            Throwable close = onOtherThread(send::close);
            assertInstanceOf(WrongThreadException.class, close);
            assertFalse(send.isClosed(), "a refused close changes nothing");
            Thread other = Thread.ofPlatform().unstarted(() -> { });
            assertFalse(send.isAccessibleBy(other));
            send.post();   // still posts on its own thread
        } finally {
            send.close();
            recv.close();
        }
        assertTrue(send.isClosed() && recv.isClosed());
    }

    @Test
    void anotherThreadCannotCloseWhatItDependsOn() throws Exception {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        try (PreparedReceive recv = PreparedReceive.ofConfined(f.qp(), new ReceiveRequest().sge(f.mr(), 0, 8))) {
            // The queue pair and region directly, then their protection domain (the region's
            // owner) and the context (two levels up): each refused before it is marked closed.
            for (Supplier<NativeResource> owner : java.util.List.<Supplier<NativeResource>>of(
                    f::qp, f::mr, () -> f.mr().protectionDomain(), f::context)) {
                NativeResource r = owner.get();
                Throwable close = onOtherThread(r::close);
                assertInstanceOf(WrongThreadException.class, close, String.valueOf(r));
                assertTrue(close.getMessage().contains(recv.toString()), close.getMessage());
                assertTrue(close.getMessage().startsWith(r.toString()), close.getMessage());
                assertFalse(r.isClosed(), r + " is still open");
            }
            assertFalse(recv.isClosed());
            recv.post();
        }
    }

    @Test
    void aRequestOfAThreadThatEndedCanBeClosedByAnyThread() throws Exception {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        CompletableFuture<PreparedSend> made = new CompletableFuture<>();
        Thread owner = Thread.ofPlatform().name("owner").start(() ->
                made.complete(PreparedSend.ofConfined(f.qp(), new SendRequest().sge(f.mr(), 0, 8))));
        PreparedSend send = made.get(30, TimeUnit.SECONDS);
        assertTrue(owner.join(java.time.Duration.ofSeconds(30)));
        assertTrue(send.isAccessibleBy(owner));
        assertFalse(send.isAccessibleBy(Thread.currentThread()));
        assertThrows(WrongThreadException.class, send::post, "still not this thread's to post");
        send.close();
        assertTrue(send.isClosed());
        assertFalse(f.qp().dependents().contains(send));
    }

    @Test
    void aConfinedPollPollsOnItsThreadOnly() throws Exception {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        PreparedPoll poll = PreparedPoll.ofConfined(f.sendCq());
        try (PreparedSend send = PreparedSend.ofConfined(f.qp(), new SendRequest().wrId(9).sge(f.mr(), 0, 8))) {
            assertEquals(PreparedPoll.EMPTY, poll.poll());
            send.post();
            assertEquals(PreparedPoll.SUCCESS, poll.poll());
            assertEquals(9, poll.completion().wrId());
            Throwable other = onOtherThread(poll::poll);
            assertInstanceOf(WrongThreadException.class, other);
            assertTrue(other.getMessage().startsWith("poll of " + poll), other.getMessage());
            assertInstanceOf(WrongThreadException.class, onOtherThread(f.sendCq()::close), "the CQ it polls");
            assertFalse(f.sendCq().isClosed());
            assertTrue(poll.isAccessibleBy(Thread.currentThread()));
        } finally {
            poll.close();
        }
        assertEquals(IllegalStateException.class, assertThrows(IllegalStateException.class, poll::poll).getClass());
    }

    @Test
    void aClosedConfinedRequestRefusesToPostOnItsThread() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        PreparedSend send = PreparedSend.ofConfined(f.qp(), new SendRequest().sge(f.mr(), 0, 8));
        send.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, send::post);
        assertEquals(IllegalStateException.class, e.getClass());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void aVirtualThreadCanOwnOne() throws Exception {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        CompletableFuture<Long> posted = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (PreparedSend send = PreparedSend.ofConfined(f.qp(), new SendRequest().wrId(77).sge(f.mr(), 0, 8))) {
                send.post();
                posted.complete(StubProvider.lastWqe(f, true).get(JAVA_LONG, StubProvider.WQE_WR_ID));
            } catch (Throwable e) {
                posted.completeExceptionally(e);
            }
        });
        try {
            assertEquals(77L, posted.get(30, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
    }

    @Test
    void sharedRequestsAreAccessibleByAnyThreadAndClosableFromAnother() throws Exception {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        PreparedSend send = PreparedSend.of(f.qp(), new SendRequest().sge(f.mr(), 0, 8));
        assertTrue(send.isAccessibleBy(Thread.ofPlatform().unstarted(() -> { })));
        assertNull(onOtherThread(send::post));
        assertNull(onOtherThread(send::close));
        assertTrue(send.isClosed());
    }

    @Test
    void confinedPostsAllocateNothing() {
        StubProvider.Fixture f = StubProvider.open(1024, 4096);
        PreparedSend send = PreparedSend.ofConfined(f.qp(), new SendRequest().sge(f.mr(), 0, 64).signaled(false));
        PreparedReceive recv = PreparedReceive.ofConfined(f.qp(), new ReceiveRequest().sge(f.mr(), 64, 64));
        PreparedRequestTest.assertPostsAllocateNothing(f, send, recv, "confined");
        send.close();
        recv.close();
    }
}
