// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.ControlConnection;
import dev.jrdma.Endpoint;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.Map;

/**
 * RDMA READ: the client reads the server's memory. The server exposes a region and then only
 * waits: its device answers the READ without its CPU, which learns of it only because the
 * client says so afterwards over the TCP control connection.
 *
 * <pre>
 * RdmaRead --port P [--device D] [--timeout S]         the server
 * RdmaRead HOST --port P [--device D] [--timeout S]    the client
 * </pre>
 */
public final class RdmaRead {
    static final String USAGE = "RdmaRead [HOST] --port P [--device D] [--timeout SECONDS]"
            + "   (without HOST: the server)";
    static final String MESSAGE = "Server memory, read by the client with RDMA READ";

    private RdmaRead() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of(), args, RdmaRead::server, RdmaRead::client);
    }

    private static void server(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ServerSocket listener = new ServerSocket(options.port())) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // @start region="expose"
            // REMOTE_READ lets peers holding the rkey read this region.
            MemoryRegion exposed = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
            int length = exposed.putString(0, MESSAGE);
            RemoteMemory readable = exposed.remote(0, length);   // offer just the message
            // @end
            Endpoint local = qp.localEndpoint();
            System.out.println("server: listening on port " + options.port() + " (device " + context.name() + ")");

            try (ControlConnection control = ControlConnection.accept(listener, options.timeout())) {
                qp.connect(control.exchange(local));
                control.send(readable);
                System.out.println("server: exposed " + readable);
                // @start region="server-wait"
                // Nothing to post, nothing to poll: the READ never reaches this program. Wait for the
                // client's word that it is done before closing (which would revoke the rkey).
                control.receiveLong();
                // @end
                System.out.println("server: the client is done reading");
            }
        }
    }

    private static void client(Cli.Options options) throws Exception {
        try (Context context = options.openDevice();
             ControlConnection control = options.connectToServer()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // The device writes what it reads into this region: LOCAL_WRITE.
            MemoryRegion sink = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            Endpoint local = qp.localEndpoint();
            qp.connect(control.exchange(local));
            RemoteMemory source = control.receiveRemoteMemory();
            System.out.println("client: the server exposes " + source);

            // @start region="read"
            int length = (int) source.length();
            qp.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_READ)
                    .sge(sink, 0, length)   // where the bytes land here...
                    .remote(source));       // ...from the server's address, with its rkey
            // The READ's completion means the bytes have landed in our region: safe to look at now.
            WorkCompletion wc = cq.take(new WorkCompletion(), options.timeout()).checkSuccess();
            String text = sink.getString(0, wc.byteLength());
            // @end
            System.out.println("client: read " + wc.byteLength() + " bytes: \"" + text + "\"");
            control.send(1);   // done: the server may close
            if (!MESSAGE.equals(text)) {
                throw new IllegalStateException("read \"" + text + "\", expected \"" + MESSAGE + "\"");
            }
        }
    }
}
