// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JDK Flight Recorder event of rdma_cm, {@code jrdma.CmEvent}, beside the core's
 * ({@code dev.jrdma.Events}, which also records the connections rdma_cm makes). Like those it
 * costs nothing unless a recording enables it, and its name and fields, not its class, are the
 * interface.
 */
final class CmEvents {
    private CmEvents() {}

    @Name("jrdma.CmEvent")
    @Label("rdma_cm Event")
    @Category("jrdma")
    @Description("An rdma_cm event was read from an event channel")
    @StackTrace(false)
    static final class Cm extends Event {
        @Label("Type") String type;
        @Label("Status") int status;
        @Label("Channel") String channel;
    }

    static void cm(CmEventChannel channel, CmEventType type, int status) {
        Cm e = new Cm();
        if (e.isEnabled()) {
            e.type = type.name();
            e.status = status;
            e.channel = channel.toString();
            e.commit();
        }
    }
}
