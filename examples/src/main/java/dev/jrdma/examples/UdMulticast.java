// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.ControlConnection;
import dev.jrdma.GidEntry;
import dev.jrdma.MemoryRegion;
import dev.jrdma.MulticastGroup;
import dev.jrdma.MulticastMembership;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionOpcode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * UD multicast: the server sends numbered datagrams to group 239.1.2.3 once every client has
 * attached a UD queue pair to it; the server's own receiver, attached too, and every client
 * count what arrived, and the server checks that each got every datagram. The TCP connection
 * only says "ready" and carries each client's count back.
 *
 * <pre>
 * UdMulticast --port P [--clients N] [--datagrams M] [--device D] [--timeout S]   the sender (and a receiver)
 * UdMulticast HOST --port P [--datagrams M] [--device D] [--timeout S]            a receiver
 * </pre>
 */
public final class UdMulticast {
    static final String USAGE = "UdMulticast [HOST] --port P [--clients N] [--datagrams M] [--device D]"
            + " [--timeout SECONDS]   (without HOST: the sender)";
    static final String GROUP = "239.1.2.3";
    static final int GRH = 40;
    static final int SLOT = 64;
    static final int QKEY = ConnectionOptions.DEFAULTS.qkey();

    private UdMulticast() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of("--clients", 1, "--datagrams", 32), args, UdMulticast::server,
                UdMulticast::client);
    }

    /** A receiver: a UD QP attached to the group, with a receive posted for every datagram. */
    private static final class Receiver implements AutoCloseable {
        final QueuePair qp;
        final CompletionQueue cq;
        final MemoryRegion buffer;
        final MulticastMembership membership;
        final MulticastSocket ipMember;

        Receiver(Context context, ProtectionDomain pd, GidEntry gid, int datagrams) throws Exception {
            InetAddress address = InetAddress.getByName(GROUP);
            cq = context.createCompletionQueue(datagrams);
            qp = pd.queuePair(QueuePairType.UD).completionQueue(cq).maxWorkRequests(1, datagrams).build();
            qp.toInit();
            qp.toRtr();
            qp.toRts();
            buffer = pd.allocate((long) datagrams * SLOT, EnumSet.of(Access.LOCAL_WRITE));
            ReceiveRequest receive = new ReceiveRequest();
            for (int i = 0; i < datagrams; i++) {
                qp.post(receive.wrId(i).sge(buffer, (long) i * SLOT, SLOT));
            }
            // @start region="attach"
            // The QP receives the group's datagrams from now on...
            membership = qp.attachMulticast(MulticastGroup.ofIp(address));
            // ...and an IP-level join on the device's interface makes this host a member of the
            // group: the kernel then loops the sender's own packets back here, and programs the
            // MAC that IPv4 multicast frames carry (rxe's attach programs the IPv6-style one).
            ipMember = new MulticastSocket(0);
            ipMember.joinGroup(new InetSocketAddress(address, 0), NetworkInterface.getByIndex(gid.ifindex()));
            // @end
        }

        /** Takes {@code datagrams} receives (or fails at the timeout); their sequence numbers. */
        BitSet receive(int datagrams, java.time.Duration timeout) {
            BitSet seen = new BitSet(datagrams);
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < datagrams; i++) {
                cq.take(wc, timeout).checkSuccess();
                seen.set(buffer.segment().get(JAVA_INT, wc.wrId() * SLOT + GRH));
            }
            return seen;
        }

        @Override
        public void close() throws Exception {
            ipMember.close();
            membership.detach();
        }
    }

    private static void server(Cli.Options options) throws Exception {
        int clients = options.number("--clients");
        int datagrams = options.number("--datagrams");
        try (Context context = options.openDevice();
             ServerSocket listener = new ServerSocket(options.port())) {
            GidEntry gid = context.defaultGid();
            ProtectionDomain pd = context.allocateProtectionDomain();
            try (Receiver own = new Receiver(context, pd, gid, datagrams)) {
                System.out.println("server: listening on port " + options.port() + " (device " + context.name()
                        + ", group " + GROUP + ")");
                List<ControlConnection> connections = new ArrayList<>();
                try {
                    for (int i = 0; i < clients; i++) {
                        ControlConnection c = ControlConnection.accept(listener, options.timeout());
                        connections.add(c);
                        c.receiveLong();   // the client is attached and has posted its receives
                    }
                    send(context, pd, gid, datagrams, options);
                    System.out.println("server: sent " + datagrams + " datagrams to " + GROUP);
                    int got = own.receive(datagrams, options.timeout()).cardinality();
                    System.out.println("server: its own receiver got " + got + " of " + datagrams);
                    boolean all = got == datagrams;
                    for (ControlConnection c : connections) {
                        long count = c.receiveLong();
                        System.out.println("server: a client got " + count + " of " + datagrams);
                        all &= count == datagrams;
                    }
                    if (!all) {
                        throw new IllegalStateException("a receiver missed datagrams");
                    }
                    System.out.println("server: every receiver got every datagram");
                } finally {
                    for (ControlConnection c : connections) {
                        c.close();
                    }
                }
            }
        }
    }

    private static void send(Context context, ProtectionDomain pd, GidEntry gid, int datagrams, Cli.Options options) {
        CompletionQueue cq = context.createCompletionQueue(datagrams);
        QueuePair qp = pd.queuePair(QueuePairType.UD).completionQueue(cq).maxWorkRequests(datagrams, 1).build();
        qp.toInit();
        qp.toRtr();
        qp.toRts();
        MemoryRegion payload = pd.allocate((long) datagrams * Integer.BYTES, EnumSet.of(Access.LOCAL_WRITE));
        MulticastGroup group;
        try {
            group = MulticastGroup.ofIp(InetAddress.getByName(GROUP));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        // @start region="send"
        // The route to the group, and the multicast QPN: every attached QP with our Q_Key receives it.
        AddressHandle toGroup = pd.createAddressHandle(group, gid);
        SendRequest send = new SendRequest();
        for (int i = 0; i < datagrams; i++) {
            payload.segment().set(JAVA_INT, (long) i * Integer.BYTES, i);
            qp.post(send.wrId(i).sge(payload, (long) i * Integer.BYTES, Integer.BYTES)
                    .datagram(toGroup, MulticastGroup.QPN, QKEY));
        }
        // @end
        WorkCompletion wc = new WorkCompletion();
        for (int i = 0; i < datagrams; i++) {
            cq.take(wc, options.timeout()).checkSuccess();
            if (wc.opcode() != WorkCompletionOpcode.SEND) {
                throw new IllegalStateException("unexpected " + wc);
            }
        }
    }

    private static void client(Cli.Options options) throws Exception {
        int datagrams = options.number("--datagrams");
        try (Context context = options.openDevice();
             ControlConnection control = options.connectToServer()) {
            GidEntry gid = context.defaultGid();
            ProtectionDomain pd = context.allocateProtectionDomain();
            try (Receiver receiver = new Receiver(context, pd, gid, datagrams)) {
                System.out.println("client: attached to " + GROUP + " on " + context.name());
                control.send(1);   // ready
                BitSet seen = receiver.receive(datagrams, options.timeout());
                System.out.println("client: received " + seen.cardinality() + " of " + datagrams + " datagrams");
                control.send(seen.cardinality());
            }
        }
    }
}
