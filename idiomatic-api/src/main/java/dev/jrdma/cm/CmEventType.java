// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.CValues;

/** The kind of an rdma_cm event ({@code enum rdma_cm_event_type}). */
public enum CmEventType {
    /** The destination address was resolved to a device and port. */
    ADDR_RESOLVED,
    /** Address resolution failed. */
    ADDR_ERROR,
    /** The route to the destination was resolved. */
    ROUTE_RESOLVED,
    /** Route resolution failed. */
    ROUTE_ERROR,
    /** A peer asks a listening id to connect. */
    CONNECT_REQUEST,
    /** A connect reply arrived (only for ids without a QP). */
    CONNECT_RESPONSE,
    /** Connecting failed. */
    CONNECT_ERROR,
    /** The peer is unreachable. */
    UNREACHABLE,
    /** The peer rejected the connection. */
    REJECTED,
    /** The connection is up. */
    ESTABLISHED,
    /** The connection was closed. */
    DISCONNECTED,
    /** The device under the id went away. */
    DEVICE_REMOVAL,
    /** A multicast join completed. */
    MULTICAST_JOIN,
    /** A multicast join failed. */
    MULTICAST_ERROR,
    /** The local address changed. */
    ADDR_CHANGE,
    /** The QP left the time-wait state. */
    TIMEWAIT_EXIT,
    /** An event type this version of jrdma does not know. */
    UNKNOWN;

    static CmEventType of(int value) {
        return CValues.dense(CmEventType.class, value, 0, UNKNOWN);
    }

    /** {@return librdmacm's name for the event ({@code rdma_event_str})} */
    public String description() {
        return this == UNKNOWN ? "unknown" : CValues.text(rdma_h.rdma_event_str(ordinal()), name());
    }
}
