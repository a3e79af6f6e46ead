// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.ControlConnection;
import dev.jrdma.Endpoint;
import dev.jrdma.MemoryRegion;
import dev.jrdma.PreparedPoll;
import dev.jrdma.PreparedSend;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.Map;

/**
 * RDMA WRITE: the client writes straight into the server's memory. The server exposes a region
 * ({@link RemoteMemory}: address, length, rkey); the client's device writes into it, and the
 * server's CPU takes no part. A SEND after the WRITE tells the server that it is done.
 *
 * <pre>
 * RdmaWrite --port P [--device D] [--timeout S]         the server
 * RdmaWrite HOST --port P [--device D] [--timeout S]    the client
 * </pre>
 */
public final class RdmaWrite {
    static final String USAGE = "RdmaWrite [HOST] --port P [--device D] [--timeout SECONDS]"
            + "   (without HOST: the server)";
    static final String MESSAGE = "Written by the client with RDMA WRITE";

    private RdmaWrite() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of(), args, RdmaWrite::server, RdmaWrite::client);
    }

    private static void server(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ServerSocket listener = new ServerSocket(options.port())) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // @start region="expose"
            // REMOTE_WRITE lets peers holding the rkey write here (REMOTE_WRITE requires LOCAL_WRITE).
            // The memory comes zeroed. The queue pair must allow remote writes too, which
            // ConnectionOptions.DEFAULTS does.
            MemoryRegion target = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            // @end
            MemoryRegion inbox = pd.allocate(64, EnumSet.of(Access.LOCAL_WRITE));   // for the "done" SEND
            Endpoint local = qp.localEndpoint();
            qp.toInit();
            qp.post(new ReceiveRequest().wrId(1).sge(inbox));   // before the client can send
            System.out.println("server: listening on port " + options.port() + " (device " + context.name() + ")");

            try (ControlConnection control = ControlConnection.accept(listener, options.timeout())) {
                // @start region="server-connect"
                Endpoint remote = control.exchange(local);
                qp.toRtr(remote);
                qp.toRts();
                // Sent last, once our QP is ready: it also tells the client it may start.
                control.send(target.remote());
                // @end
                System.out.println("server: exposed " + target.remote() + " to QP 0x"
                        + Integer.toHexString(remote.qpn()));

                // @start region="server-wait"
                // The WRITE itself produces no completion here. RC executes a QP's requests in order,
                // so when the client's SEND that follows the WRITE arrives, the written bytes are in
                // place.
                cq.take(new WorkCompletion(), options.timeout()).checkSuccess();
                String written = target.segment().getString(0);   // zeroed memory: the text ends at a 0 byte
                // @end
                System.out.println("server: the client wrote \"" + written + "\"");
            }
        }
    }

    private static void client(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ControlConnection control = options.connectToServer()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // The source of a WRITE is only read by our device: no access rights beyond the default.
            MemoryRegion source = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            // @start region="client-connect"
            Endpoint local = qp.localEndpoint();
            qp.connect(control.exchange(local));   // RESET -> INIT -> RTR -> RTS in one call
            RemoteMemory target = control.receiveRemoteMemory();
            // @end
            System.out.println("client: the server exposes " + target);

            // @start region="write"
            int length = source.putString(0, MESSAGE);
            SendRequest write = new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE)
                    .sge(source, 0, length)             // local bytes to write...
                    .remote(target.slice(0, length));   // ...to this address, with this rkey
            qp.post(write);
            WorkCompletion wc = cq.take(new WorkCompletion(), options.timeout()).checkSuccess();
            // @end
            System.out.println("client: wrote " + length + " bytes (" + wc.opcode() + " completed)");

            // @start region="prepared"
            // A request posted again and again is prepared once: PreparedSend checks it for this
            // queue pair now (region open and in bounds, opcode, remote memory) and copies it into
            // memory of its own; each post then tests only that nothing it uses was closed. Here
            // the message is written again in growing prefixes: a new wr_id and a length up to the
            // one prepared are what may change between posts (and an offset into the remote memory).
            // A prepared poll, likewise, is set up once for its CQ; each poll returns the
            // completion's status, or EMPTY, and reads nothing else: the loop bounds its own wait.
            try (PreparedSend again = PreparedSend.of(qp, write);
                 PreparedPoll poll = PreparedPoll.of(cq)) {
                for (int round = 1; round <= 3; round++) {
                    again.wrId(10 + round).length(length * round / 3).post();
                    long deadline = System.nanoTime() + options.timeout().toNanos();
                    while (poll.poll() == PreparedPoll.EMPTY) {
                        if (System.nanoTime() - deadline > 0) {
                            throw new IllegalStateException("no completion within " + options.timeout());
                        }
                    }
                    poll.completion().checkSuccess();
                }
            }
            // @end

            // @start region="notify"
            // A zero-length SEND: it carries no data, only the news. It consumes the receive the
            // server posted and arrives after the WRITE, since an RC QP executes in order.
            qp.post(new SendRequest().wrId(2).sgeCount(0));
            cq.take(wc, options.timeout()).checkSuccess();
            // @end
            System.out.println("client: told the server");
        }
    }
}
