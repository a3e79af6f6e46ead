// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/** rdma_cm's JFR event without a device: it reaches a RecordingStream by name, with its fields. */
class CmEventsTest {
    @Test
    void theCmEventIsRecordedByNameWithItsType() throws Exception {
        List<String> seen = new ArrayList<>();
        try (RecordingStream jfr = new RecordingStream()) {
            jfr.enable("jrdma.CmEvent");
            jfr.onEvent(e -> {
                synchronized (seen) {
                    seen.add(e.getEventType().getName() + " type=" + e.getString("type")
                            + " status=" + e.getInt("status"));
                }
            });
            jfr.startAsync();
            CmEvents.Cm cm = new CmEvents.Cm();
            cm.type = "ADDR_RESOLVED";
            cm.status = -110;
            cm.commit();
            jfr.stop();
            synchronized (seen) {
                assertEquals(List.of("jrdma.CmEvent type=ADDR_RESOLVED status=-110"), seen);
            }
        }
    }
}
