// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link PreparedPoll} over the stub provider (no device), and the solo guard that it and the
 * prepared requests post through: one thread passes with a compare-and-set, a second one at
 * the same time through the counted guard, and a close waits both out and refuses every call
 * after it. The device behaviour under concurrent closes is ConcurrentCloseDeviceTest's.
 */
class PreparedPollTest {

    @Test
    void pollReturnsEmptyThenTheStatusAndTheCompletionHoldsTheRest() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        try (PreparedPoll poll = PreparedPoll.of(f.sendCq())) {
            assertSame(f.sendCq(), poll.completionQueue());
            assertTrue(f.sendCq().dependents().contains(poll), "a dependent of its completion queue");
            assertEquals(PreparedPoll.EMPTY, poll.poll());
            f.qp().post(new SendRequest().wrId(41).sge(f.mr(), 0, 64).signaled(true));
            assertEquals(PreparedPoll.SUCCESS, poll.poll());
            assertEquals(41, poll.completion().wrId());
            assertEquals(WorkCompletionStatus.SUCCESS, poll.completion().status());
            assertEquals(PreparedPoll.EMPTY, poll.poll(), "one completion per signalled post");
        }
    }

    @Test
    void aClosedPollRefusesAndLeavesItsQueue() {
        StubProvider.Fixture f = StubProvider.open(16, 4096);
        PreparedPoll poll = PreparedPoll.of(f.sendCq());
        poll.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, poll::poll);
        assertTrue(e.getMessage().contains("prepared poll of completion queue"), e.getMessage());
        assertFalse(f.sendCq().dependents().contains(poll), "closing it leaves its queue");
    }

    @Test
    void pollingAllocatesNothing() {
        StubProvider.Fixture f = StubProvider.open(1024, 4096);
        PreparedSend send = PreparedSend.of(f.qp(), new SendRequest().sge(f.mr(), 0, 64).signaled(true));
        PreparedPoll poll = PreparedPoll.of(f.sendCq());
        Allocations.Steady run = Allocations.steadyState(i -> {
            send.wrId(i).post();
            return (poll.poll() == PreparedPoll.SUCCESS ? 1 : 0) + (poll.poll() == PreparedPoll.EMPTY ? 0 : 1_000_000);
        });
        long polled = run.sum();
        assertEquals(0, run.bytes(), "bytes allocated by 20000 prepared sends and two polls each");
        assertTrue(polled > 0 && polled < 1_000_000, "each send completed once: " + polled);
    }

    /**
     * Threads post one prepared send and poll one prepared poll at the same time (so calls pass
     * through both guards) while the main thread closes them: every call before the close
     * works, every thread then ends with IllegalStateException, and close() returns.
     */
    @Test
    void closeWaitsOutSoloAndCountedCallsThenRefusesThem() throws Exception {
        for (int round = 0; round < 20; round++) {
            StubProvider.Fixture f = StubProvider.open(1024, 4096);
            PreparedSend send = PreparedSend.of(f.qp(), new SendRequest().sge(f.mr(), 0, 64).signaled(false));
            PreparedPoll poll = PreparedPoll.of(f.sendCq());
            AtomicLong calls = new AtomicLong();
            CloseStress.Workers workers = CloseStress.Workers.start(
                    List.of(send::tryPost, poll::poll, send::tryPost, poll::poll), calls);
            while (calls.get() < 2_000) {
                Thread.onSpinWait();
            }
            send.close();
            poll.close();
            assertEquals(List.of(), workers.stop(Duration.ofSeconds(10)), "round " + round);
            assertThrows(IllegalStateException.class, send::post);
            assertThrows(IllegalStateException.class, poll::poll);
        }
    }
}
