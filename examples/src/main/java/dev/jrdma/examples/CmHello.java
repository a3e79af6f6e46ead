// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.ConnectionRequest;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Map;

/**
 * rdma_cm: connection management that does the endpoint exchange and the queue pair
 * transitions itself, addressed by IP address and port like TCP. The client connects with
 * private data (a few bytes carried by the connection handshake), the server accepts with its
 * own, the client sends one message over the connection and disconnects.
 *
 * <pre>
 * CmHello --port P [--device D] [--timeout S]         the server (listens on D's IPv4 address, or all)
 * CmHello HOST --port P [--device D] [--timeout S]    the client (HOST: an address of the server's device)
 * </pre>
 */
public final class CmHello {
    static final String USAGE = "CmHello [HOST] --port P [--device D] [--timeout SECONDS]"
            + "   (without HOST: the server)";
    static final String MESSAGE = "Hello over rdma_cm!";

    private CmHello() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of(), args, CmHello::server, CmHello::client);
    }

    private static void server(Cli.Options options) throws Exception {
        InetAddress address = options.listenAddress();   // --device's IPv4 address, or every device's
        // @start region="listen"
        // Closing the channel closes its ids, and with them their QPs, PDs, CQs and regions.
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId listener = channel.createId();
            listener.bind(new InetSocketAddress(address, options.port()));   // rdma_cm's own port space
            listener.listen(1);
            // @end
            System.out.println("server: listening on " + address.getHostAddress() + " port " + listener.localPort());

            // @start region="accept"
            ConnectionRequest request = listener.awaitConnectRequest(options.timeout());
            CmId id = request.id();   // a new id for this connection, on the device the request came in on
            System.out.println("server: connect request with private data \"" + text(request.privateData()) + "\"");
            Context context = id.context();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            qp.post(new ReceiveRequest().wrId(1).sge(buffer));   // before accepting: the client may send at once
            id.accept(bytes("welcome"), options.timeout());     // rdma_cm takes the QP to RTS
            // @end
            System.out.println("server: accepted, connected on " + context.name());

            // @start region="server-receive"
            WorkCompletion wc = cq.take(new WorkCompletion(), options.timeout()).checkSuccess();
            String text = buffer.getString(0, wc.byteLength());
            System.out.println("server: received \"" + text + "\"");
            id.awaitDisconnect(options.timeout());   // the client hangs up
            // @end
            System.out.println("server: the client disconnected");
        }
    }

    private static void client(Cli.Options options) throws Exception {
        InetSocketAddress server = new InetSocketAddress(options.host().orElseThrow(), options.port());
        if (!(server.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException(server + " is not an IPv4 address");
        }
        try (CmEventChannel channel = CmEventChannel.create()) {
            // @start region="connect"
            // Like a TCP connect, in steps: the IP address to a local device and port, then the
            // route (on RoCE: the GIDs), then the connection handshake itself.
            CmId id = channel.createId();
            id.resolveAddress(server, options.timeout());
            id.resolveRoute(options.timeout());
            Context context = id.context();   // the device rdma_cm chose for this route
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(8);
            QueuePair qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq));
            byte[] reply = id.connect(bytes("client hello"), options.timeout());   // the QP is in RTS now
            // @end
            if (options.device().isPresent() && !options.device().get().equals(context.name())) {
                throw new IllegalStateException("the route to " + server + " goes through " + context.name()
                        + ", not " + options.device().get());
            }
            System.out.println("client: connected through " + context.name() + ", the server's private data: \""
                    + text(reply) + "\"");

            // @start region="send"
            MemoryRegion buffer = pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE));
            int length = buffer.putString(0, MESSAGE);
            qp.post(new SendRequest().wrId(1).sge(buffer, 0, length));
            cq.take(new WorkCompletion(), options.timeout()).checkSuccess();
            id.disconnect(options.timeout());   // both sides see DISCONNECTED; the QPs move to ERR
            // @end
            System.out.println("client: sent \"" + MESSAGE + "\" and disconnected");
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** Private data arrives padded with zeros (to 56 bytes for a connect request): cut them off. */
    private static String text(byte[] privateData) {
        int end = privateData.length;
        while (end > 0 && privateData[end - 1] == 0) {
            end--;
        }
        return new String(privateData, 0, end, StandardCharsets.US_ASCII);
    }
}
