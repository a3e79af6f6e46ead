// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.ControlConnection;
import dev.jrdma.Endpoint;
import dev.jrdma.GidEntry;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionOpcode;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.Map;

/**
 * UD datagrams: an unreliable, unconnected queue pair that can send to any other UD queue pair.
 * Each send names its destination: an {@link AddressHandle} (the route), the remote QPN and
 * the remote Q_Key. The client sends a datagram; the server answers with another.
 *
 * <pre>
 * UdDatagram --port P [--device D] [--timeout S]         the server
 * UdDatagram HOST --port P [--device D] [--timeout S]    the client
 * </pre>
 */
public final class UdDatagram {
    static final String USAGE = "UdDatagram [HOST] --port P [--device D] [--timeout SECONDS]"
            + "   (without HOST: the server)";
    static final String MESSAGE = "Hello, UD!";
    /**
     * Every UD receive buffer starts with 40 bytes for the Global Routing Header: filled when the
     * datagram carried one (always on RoCE; see {@link dev.jrdma.WorkCompletion#hasGrh()}),
     * undefined otherwise.
     */
    static final int GRH = 40;
    /** Both sides use the default Q_Key; a datagram whose Q_Key differs from the receiver's is dropped. */
    static final int QKEY = ConnectionOptions.DEFAULTS.qkey();

    private UdDatagram() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of(), args, UdDatagram::server, UdDatagram::client);
    }

    // @start region="ud-qp"
    /** A UD QP needs no peer for its transitions: RESET -> INIT (with the Q_Key) -> RTR -> RTS. */
    private static QueuePair udQueuePair(ProtectionDomain pd, CompletionQueue cq) {
        QueuePair qp = pd.queuePair(QueuePairType.UD).completionQueue(cq).build();
        qp.toInit();   // sets ConnectionOptions.DEFAULTS.qkey()
        qp.toRtr();
        qp.toRts();
        return qp;
    }
    // @end

    private static void server(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ServerSocket listener = new ServerSocket(options.port())) {
            GidEntry gid = context.defaultGid();   // the port and the GID to send from
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = udQueuePair(pd, cq);
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            int gidIndex = gid.index();
            Endpoint local = qp.localEndpoint();
            // @start region="receive"
            // A datagram that finds no receive posted is silently dropped, so post first. The
            // buffer must hold the GRH in front of the payload: 40 + up to one MTU.
            qp.post(new ReceiveRequest().wrId(1).sge(buffer, 0, GRH + local.mtu().bytes()));
            // @end
            System.out.println("server: listening on port " + options.port() + " (device " + context.name()
                    + ", UD QP 0x" + Integer.toHexString(qp.qpNumber()) + ")");

            try (ControlConnection control = ControlConnection.accept(listener, options.timeout())) {
                // Only the QPN and GID of the endpoint matter for UD: there is no connection.
                Endpoint client = control.exchange(local);
                // @start region="server-receive"
                WorkCompletion wc = cq.take(new WorkCompletion(), options.timeout()).checkSuccess();
                int payload = wc.byteLength() - GRH;   // byteLength counts the GRH too
                String text = buffer.getString(GRH, payload);
                // @end
                System.out.println("server: received \"" + text + "\" (" + payload + " bytes after the " + GRH
                        + "-byte GRH) from QP 0x" + Integer.toHexString(wc.sourceQpNumber()));

                // @start region="reply"
                // The completion names the sender's QPN; the route back comes from its endpoint.
                AddressHandle toClient = pd.createAddressHandle(client, gid.port(), gidIndex);
                int length = buffer.putString(0, "ack: " + text);
                qp.post(new SendRequest().wrId(2).sge(buffer, 0, length)
                        .datagram(toClient, wc.sourceQpNumber(), QKEY));
                cq.take(wc, options.timeout()).checkSuccess();   // sent: UD never says "received"
                // @end
                System.out.println("server: answered \"ack: " + text + "\"");
            }
        }
    }

    private static void client(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ControlConnection control = options.connectToServer()) {
            GidEntry gid = context.defaultGid();   // the port and the GID to send from
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = udQueuePair(pd, cq);
            // [0, 2048) for the datagram we send, [2048, 4096) for the answer (GRH + payload).
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            int gidIndex = gid.index();
            Endpoint local = qp.localEndpoint();
            qp.post(new ReceiveRequest().wrId(1).sge(buffer, 2048, 2048));   // for the answer
            Endpoint server = control.exchange(local);

            // @start region="send"
            // The address handle is the route to the server's port (on RoCE: its GID, sent from
            // ours); the QPN and Q_Key pick the queue pair there. Any number of destinations may
            // share one UD QP, each with its own address handle.
            AddressHandle toServer = pd.createAddressHandle(server, gid.port(), gidIndex);
            int length = buffer.putString(0, MESSAGE);   // at most one MTU
            qp.post(new SendRequest().wrId(2).sge(buffer, 0, length).datagram(toServer, server.qpn(), QKEY));
            // @end
            System.out.println("client: sent \"" + MESSAGE + "\" to QP 0x" + Integer.toHexString(server.qpn()));

            WorkCompletion wc = new WorkCompletion();
            String answer = null;
            for (int i = 0; i < 2; i++) {   // our send's completion and the answer's, in either order
                cq.take(wc, options.timeout()).checkSuccess();
                if (wc.opcode() == WorkCompletionOpcode.RECV) {
                    answer = buffer.getString(2048 + GRH, wc.byteLength() - GRH);
                }
            }
            System.out.println("client: received \"" + answer + "\"");
            if (!("ack: " + MESSAGE).equals(answer)) {
                throw new IllegalStateException("unexpected answer \"" + answer + "\"");
            }
        }
    }
}
