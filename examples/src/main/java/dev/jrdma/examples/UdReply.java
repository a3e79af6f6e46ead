// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.AddressVector;
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
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * A UD server that answers every sender from the datagram itself: the receive completion names
 * the sender's QPN, and its GRH (the 40 bytes in front of the payload) the sender's GID, so the
 * route back ({@link ProtectionDomain#createAddressHandle(int, WorkCompletion, MemorySegment)},
 * {@code ibv_create_ah_from_wc}) needs nothing from the client. The clients learn the server's
 * endpoint over TCP; the server never learns theirs.
 *
 * <pre>
 * UdReply --port P [--clients N] [--device D] [--timeout S]   the server (answers N datagrams, default 2)
 * UdReply HOST --port P [--device D] [--timeout S]            a client
 * </pre>
 */
public final class UdReply {
    static final String USAGE = "UdReply [HOST] --port P [--clients N] [--device D] [--timeout SECONDS]"
            + "   (without HOST: the server)";
    static final int GRH = 40;
    static final int SLOT = 2048;
    static final int QKEY = ConnectionOptions.DEFAULTS.qkey();

    private UdReply() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of("--clients", 2), args, UdReply::server, UdReply::client);
    }

    private static QueuePair udQueuePair(ProtectionDomain pd, CompletionQueue cq, int depth) {
        QueuePair qp = pd.queuePair(QueuePairType.UD).completionQueue(cq).maxWorkRequests(depth, depth).build();
        qp.toInit();
        qp.toRtr();
        qp.toRts();
        return qp;
    }

    private static void server(Cli.Options options) throws Exception {
        int clients = options.number("--clients");
        try (Context context = options.openDevice();
             ServerSocket listener = new ServerSocket(options.port())) {
            GidEntry gid = context.defaultGid();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4 * clients);
            QueuePair qp = udQueuePair(pd, cq, clients);
            // One slot per expected datagram, then one per answer.
            MemoryRegion buffer = pd.allocate(2L * clients * SLOT, EnumSet.of(Access.LOCAL_WRITE));
            for (int i = 0; i < clients; i++) {
                qp.post(new ReceiveRequest().wrId(i).sge(buffer, (long) i * SLOT, SLOT));
            }
            byte[] local = qp.localEndpoint().toBytes();
            System.out.println("server: listening on port " + options.port() + " (device " + context.name()
                    + ", UD QP 0x" + Integer.toHexString(qp.qpNumber()) + ")");
            List<ControlConnection> connections = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    ControlConnection control = ControlConnection.accept(listener, options.timeout());
                    connections.add(control);
                    control.send(local);   // our endpoint; theirs is never asked for
                }
                WorkCompletion wc = new WorkCompletion();
                SendRequest answer = new SendRequest();
                AddressHandle[] routes = new AddressHandle[clients];
                for (int sent = 0; sent < clients; ) {
                    cq.take(wc, options.timeout()).checkSuccess();
                    if (wc.opcode() == WorkCompletionOpcode.SEND) {
                        routes[(int) (wc.wrId() - clients)].close();   // the answer left: its route is done
                        sent++;
                        continue;
                    }
                    // @start region="reply-from-completion"
                    int slot = (int) wc.wrId();
                    MemorySegment grh = buffer.segment().asSlice((long) slot * SLOT, GRH);
                    String text = buffer.getString((long) slot * SLOT + GRH, wc.byteLength() - GRH);
                    // Who sent it: the GRH holds the sender's GID, the completion its QPN.
                    AddressVector sender = context.replyAddress(gid.port(), wc, grh);
                    routes[slot] = pd.createAddressHandle(gid.port(), wc, grh);
                    long at = (long) (clients + slot) * SLOT;
                    int length = buffer.putString(at, "ack: " + text);
                    qp.post(answer.wrId(clients + slot).sge(buffer, at, length)
                            .datagram(routes[slot], wc.sourceQpNumber(), QKEY));
                    // @end
                    String from = sender.gid().ipv4().map(InetAddress::getHostAddress).orElse(sender.gid().toString());
                    System.out.println("server: answered \"" + text + "\" from " + from + " QP 0x"
                            + Integer.toHexString(wc.sourceQpNumber()));
                }
            } finally {
                for (ControlConnection c : connections) {
                    c.close();
                }
            }
        }
    }

    private static void client(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ControlConnection control = options.connectToServer()) {
            GidEntry gid = context.defaultGid();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4);
            QueuePair qp = udQueuePair(pd, cq, 1);
            MemoryRegion buffer = pd.allocate(2 * SLOT, EnumSet.of(Access.LOCAL_WRITE));
            qp.post(new ReceiveRequest().wrId(1).sge(buffer, SLOT, SLOT));
            Endpoint server = Endpoint.fromBytes(control.receiveBytes());
            String message = "hello from QP 0x" + Integer.toHexString(qp.qpNumber());
            int length = buffer.putString(0, message);
            AddressHandle toServer = pd.createAddressHandle(server, gid.port(), gid.index());
            qp.post(new SendRequest().wrId(2).sge(buffer, 0, length).datagram(toServer, server.qpn(), QKEY));
            System.out.println("client: sent \"" + message + "\"");
            WorkCompletion wc = new WorkCompletion();
            String answer = null;
            for (int i = 0; i < 2; i++) {
                cq.take(wc, options.timeout()).checkSuccess();
                if (wc.opcode() == WorkCompletionOpcode.RECV) {
                    answer = buffer.getString(SLOT + GRH, wc.byteLength() - GRH);
                }
            }
            System.out.println("client: received \"" + answer + "\"");
            if (!("ack: " + message).equals(answer)) {
                throw new IllegalStateException("unexpected answer \"" + answer + "\"");
            }
        }
    }
}
