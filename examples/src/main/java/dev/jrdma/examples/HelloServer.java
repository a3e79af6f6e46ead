// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.Endpoint;
import dev.jrdma.EndpointExchange;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.Rdma;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import java.net.ServerSocket;
import java.util.EnumSet;
import java.util.Map;

/**
 * Hello over SEND/RECV, the server: waits for one {@link HelloClient}, receives its message
 * and answers with an acknowledgement, both over a reliable connection (RC).
 *
 * <pre>HelloServer --port P [--device D] [--timeout S]</pre>
 */
public final class HelloServer {
    static final String USAGE = "HelloServer --port P [--device D] [--timeout SECONDS]";

    private HelloServer() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Cli.Role.SERVER, Map.of(), args, HelloServer::serve);
    }

    private static void serve(Cli.Options options) throws Exception {
        // @start region="setup"
        // Closing the context closes everything made from it: PD, CQ, QP, memory region.
        try (Context context = options.device().map(Rdma::open).orElseGet(Rdma::openDefault);
             ServerSocket listener = new ServerSocket(options.port())) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);   // one CQ for sends and receives
            // It sends from context.defaultGid(), a port and a GID (builder: sourceGid to choose).
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // Received bytes are written by the device: the region needs LOCAL_WRITE.
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            // @end

            // @start region="post-receive"
            // A SEND consumes a receive the peer posted beforehand. Post ours before the client can
            // learn our endpoint, so its message always finds one. INIT is enough to post receives.
            qp.toInit();
            qp.post(new ReceiveRequest().wrId(1).sge(buffer));
            // @end
            System.out.println("server: listening on port " + options.port() + " (device " + context.name()
                    + ", QP 0x" + Integer.toHexString(qp.qpNumber()) + ")");

            // @start region="accept"
            // Out of band, over TCP: our endpoint (QPN, PSN, LID, GID, MTU) for the client's. Then
            // INIT -> RTR (ready to receive from the client's QP) -> RTS (ready to send), and a
            // last TCP round trip so that neither side returns before the other's QP is ready.
            Endpoint remote = EndpointExchange.accept(listener, qp, options.timeout());
            // @end
            System.out.println("server: connected to QP 0x" + Integer.toHexString(remote.qpn()));

            // @start region="receive"
            WorkCompletion wc = new WorkCompletion();   // reusable: the CQ is polled into it
            cq.take(wc, options.timeout()).checkSuccess();   // throws unless the status is SUCCESS
            String hello = buffer.getString(0, wc.byteLength());
            // @end
            System.out.println("server: received \"" + hello + "\"");

            // @start region="answer"
            // The receive has completed, so the buffer is ours again: reuse it for the answer.
            int length = buffer.putString(0, "ack: " + hello);
            qp.post(new SendRequest().wrId(2).sge(buffer, 0, length));
            cq.take(wc, options.timeout()).checkSuccess();   // the client's QP acknowledged it
            // @end
            System.out.println("server: sent \"ack: " + hello + "\"");
        }
    }
}
