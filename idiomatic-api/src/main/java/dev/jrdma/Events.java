// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JDK Flight Recorder events of jrdma, named {@code jrdma.*}, category "jrdma". They cost
 * nothing unless a recording is running ({@code -XX:StartFlightRecording}, {@code jcmd JFR.start},
 * a {@code RecordingStream}): each site asks {@code isEnabled()} first, which the JIT folds to a
 * constant while no recording enables the event, and builds the event (strings included) only
 * after that. Only control-path sites emit; the one data-path site, {@link CompletionQueue}
 * polling, checks for an enabled error event before it reads any status. The events are
 * package-private: their names and fields, not classes, are the interface ({@code jfr print
 * --events jrdma.* recording.jfr}).
 */
final class Events {
    private Events() {}

    /** The fields of both connection events; JFR records a superclass's fields with the event's. */
    @Category("jrdma")
    @StackTrace(false)
    abstract static class Connection extends Event {
        @Label("Peer") String peer;
        @Label("Local QPN") int localQpn;
        @Label("Remote QPN") int remoteQpn;
        @Label("Transport") String transport;
    }

    @Name("jrdma.ConnectionEstablished")
    @Label("RDMA Connection Established")
    @Description("A queue pair was connected to a peer's (control connection or rdma_cm)")
    static final class ConnectionEstablished extends Connection {}

    @Name("jrdma.ConnectionClosed")
    @Label("RDMA Connection Closed")
    @Description("The connection of a queue pair ended (control connection closed, rdma_cm disconnect)")
    static final class ConnectionClosed extends Connection {}

    @Name("jrdma.QueuePairStateChange")
    @Label("Queue Pair State Change")
    @Category("jrdma")
    @Description("ibv_modify_qp moved a queue pair to another state")
    @StackTrace(false)
    static final class StateChange extends Event {
        @Label("QPN") int qpn;
        @Label("Type") String type;
        @Label("From") String from;
        @Label("To") String to;
    }

    @Name("jrdma.ErrorCompletion")
    @Label("Error Completion")
    @Category("jrdma")
    @Description("A work completion with a status other than SUCCESS was polled")
    @StackTrace(false)
    static final class ErrorCompletion extends Event {
        @Label("Status") String status;
        @Label("Opcode") String opcode;
        @Label("QPN") int qpn;
        @Label("Work Request Id") long wrId;
        @Label("Vendor Error") int vendorError;
        @Label("Completion Queue") String cq;
    }

    @Name("jrdma.AsyncEvent")
    @Label("RDMA Async Event")
    @Category("jrdma")
    @Description("An asynchronous event of a device (QP fatal, port change, ...)")
    @StackTrace(false)
    static final class Async extends Event {
        @Label("Device") String device;
        @Label("Type") String type;
        @Label("Object") String object;
    }

    @Name("jrdma.MemoryRegistration")
    @Label("Memory Registration")
    @Category("jrdma")
    @Description("ibv_reg_mr: pins and registers memory; the event's duration is the registration's")
    static final class Registration extends Event {
        @Label("Bytes") @DataAmount long bytes;
        @Label("Access") String access;
        @Label("Region") String region;
    }

    private static final ErrorCompletion ERROR_PROBE = new ErrorCompletion();

    /** Whether error completions are being recorded; cheap enough for every poll. */
    static boolean errorCompletionsEnabled() {
        return ERROR_PROBE.isEnabled();
    }

    /** Records every error completion among the {@code n} first of {@code batch}. */
    static void errorCompletions(CompletionQueue cq, WorkCompletions batch, int n) {
        for (int i = 0; i < n; i++) {
            errorCompletion(cq, batch.get(i));
        }
    }

    static void errorCompletion(CompletionQueue cq, WorkCompletion wc) {
        if (wc.isSuccess()) {
            return;
        }
        ErrorCompletion e = new ErrorCompletion();
        e.status = wc.status().name();
        e.opcode = opcodeOf(wc);
        e.qpn = wc.qpNumber();
        e.wrId = wc.wrId();
        e.vendorError = wc.vendorError();
        e.cq = cq.toString();
        e.commit();
    }

    /** The opcode of an error completion is only valid for some statuses; never throw over it. */
    private static String opcodeOf(WorkCompletion wc) {
        try {
            return wc.opcode().name();
        } catch (RuntimeException unknown) {
            return "unknown";
        }
    }

    static void connectionEstablished(String peer, QueuePair qp, Endpoint remote) {
        connection(new ConnectionEstablished(), peer, qp, remote == null ? 0 : remote.qpn(), qp.type().name());
    }

    static void connectionClosed(String peer, QueuePair qp, Endpoint remote) {
        connection(new ConnectionClosed(), peer, qp, remote == null ? 0 : remote.qpn(), qp.type().name());
    }

    /** rdma_cm knows the remote QPN only inside the connection's events: recorded as 0. */
    static void cmConnection(boolean established, String peer, QueuePair qp) {
        if (qp != null) {
            connection(established ? new ConnectionEstablished() : new ConnectionClosed(), peer, qp, 0,
                    "rdma_cm " + qp.type().name());
        }
    }

    private static void connection(Connection e, String peer, QueuePair qp, int remoteQpn, String transport) {
        if (e.isEnabled()) {
            e.peer = peer;
            e.localQpn = qp.qpNumber();
            e.remoteQpn = remoteQpn;
            e.transport = transport;
            e.commit();
        }
    }

    static void stateChange(QueuePair qp, QueuePairState from, QueuePairState to) {
        StateChange e = new StateChange();
        if (e.isEnabled()) {
            e.qpn = qp.qpNumber();
            e.type = qp.type().name();
            e.from = String.valueOf(from);
            e.to = to.name();
            e.commit();
        }
    }

    static void async(Context context, AsyncEvent event) {
        Async e = new Async();
        if (e.isEnabled()) {
            e.device = context.name();
            e.type = event.type().name();
            e.object = event.queuePair().map(Object::toString)
                    .or(() -> event.completionQueue().map(Object::toString))
                    .or(() -> event.sharedReceiveQueue().map(Object::toString))
                    .orElse(event.port().isPresent() ? "port " + event.port().getAsInt() : "");
            e.commit();
        }
    }


    /** Starts timing a registration; {@link #registered} ends it. */
    static Registration beginRegistration() {
        Registration e = new Registration();
        e.begin();
        return e;
    }

    static void registered(Registration e, MemoryRegion mr, long bytes, Object access) {
        e.end();
        if (e.shouldCommit()) {
            e.bytes = bytes;
            e.access = String.valueOf(access);
            e.region = mr.toString();
            e.commit();
        }
    }
}
