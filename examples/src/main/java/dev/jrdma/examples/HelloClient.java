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
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionOpcode;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Map;

/**
 * Hello over SEND/RECV, the client: connects to a {@link HelloServer}, sends "Hello, RDMA!"
 * and prints the server's acknowledgement.
 *
 * <pre>HelloClient HOST --port P [--device D] [--timeout S]</pre>
 */
public final class HelloClient {
    static final String USAGE = "HelloClient HOST --port P [--device D] [--timeout SECONDS]";
    static final String HELLO = "Hello, RDMA!";

    private HelloClient() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Cli.Role.CLIENT, Map.of(), args, HelloClient::hello);
    }

    private static void hello(Cli.Options options) throws Exception {
        try (Context context = options.openDevice()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
            // Two halves of one region: [0, 2048) for what we send, [2048, 4096) for the answer.
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));

            // @start region="connect"
            // The server answers as soon as it has our message: post the receive for its answer
            // before anything can reach the server.
            qp.toInit();
            qp.post(new ReceiveRequest().wrId(1).sge(buffer, 2048, 2048));
            InetSocketAddress server = new InetSocketAddress(options.host().orElseThrow(), options.port());
            Endpoint remote;
            // connect() retries while the server is not listening yet, up to the timeout.
            try (ControlConnection control = ControlConnection.connect(server, options.timeout())) {
                remote = control.connect(qp);   // INIT -> RTS; returns once the server's QP is in RTS too
            }
            // @end
            System.out.println("client: connected to QP 0x" + Integer.toHexString(remote.qpn()) + " at " + server);

            // @start region="send"
            // connect() returned after the server's QP reached RTS, and the server posted its
            // receive before that: this SEND finds a receive waiting (no RNR, no retransmission).
            int length = buffer.putString(0, HELLO);
            qp.post(new SendRequest().wrId(2).sge(buffer, 0, length));   // opcode SEND by default
            // @end
            System.out.println("client: sent \"" + HELLO + "\"");

            // @start region="completions"
            // Two completions arrive on the one CQ, in either order: our SEND's and the answer's RECV.
            WorkCompletion wc = new WorkCompletion();
            String answer = null;
            for (int i = 0; i < 2; i++) {
                cq.take(wc, options.timeout()).checkSuccess();
                if (wc.opcode() == WorkCompletionOpcode.RECV) {
                    answer = buffer.getString(2048, wc.byteLength());
                }
            }
            // @end
            System.out.println("client: received \"" + answer + "\"");
            if (!("ack: " + HELLO).equals(answer)) {
                throw new IllegalStateException("unexpected answer \"" + answer + "\"");
            }
        }
    }
}
