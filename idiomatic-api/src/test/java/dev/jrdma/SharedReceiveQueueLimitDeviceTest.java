// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The SRQ's limit, its size and its query: {@code ibv_modify_srq}, {@code ibv_query_srq}. */
@DeviceTest
@EveryKernel
class SharedReceiveQueueLimitDeviceTest extends DeviceFixture {
    private static final int POSTED = 10;
    private static final int LIMIT = 7;

    @Test
    @Exercises({"ibv_modify_srq", "ibv_query_srq"})
    void theArmedLimitRaisesOneEventWhenReceivesRunLow() throws InterruptedException {
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        context.onAsyncEvent(e -> {
            if (e.type() == AsyncEventType.SRQ_LIMIT_REACHED) {
                events.add(e);
            }
        });
        CompletionQueue cq = context.createCompletionQueue(32);
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(16, 1);
        SharedReceiveQueueAttributes fresh = srq.query();
        // rxe grants a power-of-two ring less one slot: creation answers 16, the query 31.
        assertTrue(fresh.maxWorkRequests() >= srq.maxWorkRequests(), fresh.toString());
        assertEquals(0, fresh.limit(), "no limit is armed at creation");

        QueuePair sender = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
        QueuePair receiver = pd.queuePair(QueuePairType.RC).completionQueue(cq).sharedReceiveQueue(srq).build();
        Endpoint s = sender.localEndpoint();
        sender.connect(receiver.localEndpoint());
        receiver.connect(s);
        MemoryRegion mr = pd.allocate(4096);
        ReceiveRequest recv = new ReceiveRequest();
        for (int i = 0; i < POSTED; i++) {
            srq.post(recv.wrId(100 + i).sge(mr, 1024 + i * 64L, 64));
        }
        srq.armLimit(LIMIT);
        assertEquals(LIMIT, srq.query().limit());

        // 10 posted, limit 7: three receives leave 7 (not fewer), the fourth leaves 6.
        SendRequest send = new SendRequest().sge(mr, 0, 8);
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < POSTED - LIMIT; i++) {
            exchange(sender, send.wrId(i), cq, wc);
        }
        assertNull(events.poll(200, TimeUnit.MILLISECONDS), "7 receives left is not below the limit of 7");
        assertEquals(LIMIT, srq.query().limit(), "still armed");
        exchange(sender, send.wrId(POSTED), cq, wc);
        AsyncEvent reached = events.poll(TestDevices.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(reached != null, "no SRQ_LIMIT_REACHED within " + TestDevices.TIMEOUT);
        assertSame(srq, reached.sharedReceiveQueue().orElseThrow());
        assertEquals(0, srq.query().limit(), "the limit disarms itself when it fires");
        // Disarmed: the next receive raises nothing.
        exchange(sender, send.wrId(POSTED + 1), cq, wc);
        assertNull(events.poll(200, TimeUnit.MILLISECONDS));
    }

    @Test
    @Exercises({"ibv_modify_srq", "ibv_query_srq"})
    void aQueueGrowsAndRefusesALimitAboveItsSize() {
        SharedReceiveQueue srq = pd.createSharedReceiveQueue(16, 1);
        int before = srq.query().maxWorkRequests();
        RdmaException tooHigh = assertThrows(RdmaException.class, () -> srq.armLimit(before + 100));
        assertEquals(Verb.IBV_MODIFY_SRQ, tooHigh.verb());
        assertTrue(context.queryDevice().canResizeSharedReceiveQueue(), "rxe reports IBV_DEVICE_SRQ_RESIZE");
        srq.resize(before * 2);
        SharedReceiveQueueAttributes grown = srq.query();
        assertTrue(grown.maxWorkRequests() >= before * 2, grown.toString());
        assertEquals(grown.maxWorkRequests(), srq.maxWorkRequests());
        // The bigger queue holds more receives than the old size.
        MemoryRegion mr = pd.allocate(64);
        ReceiveRequest recv = new ReceiveRequest().sge(mr, 0, 64);
        for (int i = 0; i < before + 1; i++) {
            srq.post(recv.wrId(i));
        }
        srq.close();
        assertThrows(IllegalStateException.class, srq::query);
    }

    private static void exchange(QueuePair sender, SendRequest send, CompletionQueue cq, WorkCompletion wc) {
        sender.post(send);
        for (int i = 0; i < 2; i++) {
            cq.take(wc, TestDevices.TIMEOUT).checkSuccess();
        }
    }
}
