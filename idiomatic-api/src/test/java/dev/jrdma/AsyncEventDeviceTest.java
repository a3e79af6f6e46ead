// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.IpCommand;
import dev.jrdma.testing.Exercises;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

@DeviceTest
class AsyncEventDeviceTest {
    @Test
    @Exercises({"ibv_get_async_event", "ibv_ack_async_event"})
    void portDownAndUpReachTheListener() throws Exception {
        Assumptions.assumeTrue(System.getenv("JRDMA_IN_SOFTROCE_VM") != null,
                "toggles the netdev under rxe1, so it runs only in the Soft-RoCE VM");
        BlockingQueue<AsyncEvent> events = new LinkedBlockingQueue<>();
        List<RecordedEvent> recorded = new CopyOnWriteArrayList<>();
        try (RecordingStream jfr = new RecordingStream();
             Context context = Rdma.device("rxe1").orElseThrow().open()) {
            jfr.enable("jrdma.AsyncEvent");
            jfr.onEvent("jrdma.AsyncEvent", recorded::add);
            jfr.startAsync();
            context.onAsyncEvent(events::add);
            context.onAsyncEvent(e -> {
                throw new IllegalStateException("a failing listener must not stop delivery");
            });
            try {
                IpCommand.run("link", "set", "v1", "down");
                AsyncEvent down = next(events, AsyncEventType.PORT_ERR);
                assertEquals(1, down.port().orElseThrow());
                assertTrue(down.queuePair().isEmpty());
                assertEquals("PORT_ERR (port error) on port 1", down.toString());
            } finally {
                IpCommand.run("link", "set", "v1", "up");
            }
            assertEquals(1, next(events, AsyncEventType.PORT_ACTIVE).port().orElseThrow());
            assertEquals(PortState.ACTIVE, context.queryPort(1).state());
            jfr.stop();
            // PORT_ACTIVE, not PORT_ERR: the stream may still be starting when the port goes down.
            assertTrue(recorded.stream().anyMatch(e -> "PORT_ACTIVE".equals(e.getString("type"))
                    && "rxe1".equals(e.getString("device")) && "port 1".equals(e.getString("object"))), recorded.toString());
        }
    }

    @Test
    void closingTheContextStopsTheEventThread() {
        Context context = TestDevices.device().open();
        context.onAsyncEvent(e -> { });
        Thread events = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("jrdma-async-events-" + context.name()) && t.isAlive())
                .findFirst().orElseThrow();
        context.close();
        assertFalse(events.isAlive(), "the event thread must be gone before the context is");
    }

    /** The next event of {@code type} (others, e.g. GID changes, are skipped), within the test timeout. */
    private static AsyncEvent next(BlockingQueue<AsyncEvent> events, AsyncEventType type) throws InterruptedException {
        long deadline = System.nanoTime() + TestDevices.TIMEOUT.toNanos();
        while (true) {
            AsyncEvent e = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (e == null) {
                throw new AssertionError("no " + type + " event within " + TestDevices.TIMEOUT);
            }
            if (e.type() == type) {
                return e;
            }
        }
    }
}
