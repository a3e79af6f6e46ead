// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * The JFR plumbing without a device: every jrdma event type of the core reaches a RecordingStream
 * by name (rdma_cm's is CmEventsTest's).
 */
class EventsTest {
    @Test
    void everyEventTypeIsRecordedByName() throws Exception {
        List<String> seen = new ArrayList<>();
        try (RecordingStream jfr = new RecordingStream()) {
            List<String> names = List.of("jrdma.ConnectionEstablished", "jrdma.ConnectionClosed",
                    "jrdma.QueuePairStateChange", "jrdma.ErrorCompletion", "jrdma.AsyncEvent",
                    "jrdma.MemoryRegistration");
            names.forEach(jfr::enable);
            jfr.onEvent(e -> {
                synchronized (seen) {
                    seen.add(e.getEventType().getName());
                }
            });
            jfr.startAsync();
            new Events.ConnectionEstablished().commit();
            new Events.ConnectionClosed().commit();
            new Events.StateChange().commit();
            new Events.ErrorCompletion().commit();
            new Events.Async().commit();
            new Events.Registration().commit();
            jfr.stop();
            synchronized (seen) {
                assertEquals(names.size(), seen.size(), seen.toString());
            }
        }
    }
}
