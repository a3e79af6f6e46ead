// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.Access;
import dev.jrdma.CompletionChannel;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionOpcode;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.ConnectionRequest;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A multi-client rdma_cm echo service on virtual threads: the server accepts every connection
 * on one event channel and serves each on a virtual thread of its own, in plain blocking code;
 * the client opens its connections on virtual threads that share one event channel. Each
 * connection does a number of SEND round trips; the server checks every byte it receives
 * against the pattern the client's index and the round give, and the client every byte of the
 * echo. Each connection's CQ has a completion channel of its own, so a {@code take} that finds
 * nothing parks its virtual thread on the channel until the completion event: a thousand idle
 * connections hold no carrier and cost no wake-ups.
 *
 * <pre>
 * CmEcho --port P [--connections 16] [--device D] [--timeout S]
 *     the server: serves that many connections, then exits
 * CmEcho HOST --port P [--connections 16] [--rounds 10] [--size 4096] [--device D] [--timeout S]
 *     the client: that many connections at once, each rounds round trips of size bytes
 * </pre>
 */
public final class CmEcho {
    static final String USAGE = "CmEcho [HOST] --port P [--connections N] [--rounds R] [--size BYTES] [--device D]"
            + " [--timeout SECONDS]   (without HOST: the server, which serves N connections)";

    private CmEcho() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of("--connections", 16, "--rounds", 10, "--size", 4096), args,
                CmEcho::server, CmEcho::client);
    }

    private static void server(Cli.Options options) throws Exception {
        InetAddress address = options.listenAddress();   // --device's IPv4 address, or every device's
        int connections = options.number("--connections");
        // @start region="echo-server"
        // Closed in reverse: the executor first (it waits for every connection's thread), then the
        // channel, which closes the ids that are left and with them their QPs, CQs and regions.
        try (CmEventChannel channel = CmEventChannel.create();
             ExecutorService perConnection = Executors.newVirtualThreadPerTaskExecutor()) {
            CmId listener = channel.createId();
            listener.bind(new InetSocketAddress(address, options.port()));
            listener.listen(connections);
            System.out.println("server: listening on " + address.getHostAddress() + " port " + listener.localPort());
            List<Future<Integer>> served = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                ConnectionRequest request = listener.awaitConnectRequest(options.timeout());
                served.add(perConnection.submit(() -> serve(request, options.timeout())));
            }
            int messages = 0;
            for (Future<Integer> connection : served) {
                messages += result(connection);
            }
            // @end
            System.out.println("server: served " + connections + " connections, " + messages
                    + " messages echoed, every byte checked");
        }
    }

    // @start region="echo-serve"
    /** One connection, on its own virtual thread: accept, echo the client's rounds, await the hang-up. */
    private static int serve(ConnectionRequest request, Duration timeout) {
        ByteBuffer hello = ByteBuffer.wrap(request.privateData());
        int index = hello.getInt();
        int rounds = hello.getInt();
        int size = hello.getInt();
        try (CmId id = request.id()) {   // closing the id closes everything created on its context
            Context context = id.context();
            ProtectionDomain pd = context.allocateProtectionDomain();
            // A channel of its own: take() parks this virtual thread on it once it finds nothing.
            CompletionChannel events = context.createCompletionChannel();
            CompletionQueue cq = context.createCompletionQueue(4, events);
            QueuePair qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq)
                    .maxWorkRequests(1, 1));
            MemoryRegion buffer = pd.allocate(2L * size, EnumSet.of(Access.LOCAL_WRITE));
            MemorySegment in = buffer.segment().asSlice(0, size);
            MemorySegment out = buffer.segment().asSlice(size, size);
            ReceiveRequest receive = new ReceiveRequest().sge(buffer, 0, size);
            SendRequest send = new SendRequest().sge(buffer, size, size);
            WorkCompletion wc = new WorkCompletion();
            qp.post(receive.wrId(0));   // before accepting: the client sends at once
            id.accept(new byte[0], timeout);
            int sent = 0;
            for (int r = 0; r < rounds; r++) {
                // Sends and receives complete in either order: count the echoes sent meanwhile.
                while (cq.take(wc, timeout).checkSuccess().opcode() != WorkCompletionOpcode.RECV) {
                    sent++;
                }
                verify(in, index, r, "the message of connection " + index);
                for (; sent < r; sent++) {
                    cq.take(wc, timeout).checkSuccess();   // the previous echo has left the buffer
                }
                out.copyFrom(in);
                if (r + 1 < rounds) {
                    qp.post(receive.wrId(r + 1));   // before the echo: the next message follows it
                }
                qp.post(send.wrId(r));
            }
            for (; sent < rounds; sent++) {
                cq.take(wc, timeout).checkSuccess();
            }
            id.awaitDisconnect(timeout);
            return rounds;
        }
    }
    // @end

    private static void client(Cli.Options options) throws Exception {
        InetSocketAddress server = new InetSocketAddress(options.host().orElseThrow(), options.port());
        if (!(server.getAddress() instanceof Inet4Address)) {
            throw new IllegalArgumentException(server + " is not an IPv4 address");
        }
        int connections = options.number("--connections");
        int rounds = options.number("--rounds");
        int size = options.number("--size");
        long start = System.nanoTime();
        try (CmEventChannel channel = CmEventChannel.create();
             ExecutorService perConnection = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                int index = i;
                done.add(perConnection.submit(() -> connect(channel, server, index, rounds, size, options.timeout())));
            }
            int verified = 0;
            for (Future<Integer> connection : done) {
                verified += result(connection);
            }
            System.out.printf("client: %d connections, %d round trips of %d bytes verified in %.1f s%n",
                    connections, verified, size, (System.nanoTime() - start) / 1e9);
        }
    }

    /** One connection, on its own virtual thread: connect, the verified round trips, disconnect. */
    private static int connect(CmEventChannel channel, InetSocketAddress server, int index, int rounds, int size,
                               Duration timeout) {
        try (CmId id = channel.createId()) {
            id.resolveAddress(server, timeout);
            id.resolveRoute(timeout);
            Context context = id.context();
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionChannel events = context.createCompletionChannel();
            CompletionQueue cq = context.createCompletionQueue(4, events);
            QueuePair qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).completionQueue(cq)
                    .maxWorkRequests(1, 1));
            Echo echo = new Echo(pd, cq, size, timeout);
            qp.post(echo.receive.wrId(0));
            id.connect(ByteBuffer.allocate(12).putInt(index).putInt(rounds).putInt(size).array(), timeout);
            for (int r = 0; r < rounds; r++) {
                echo.awaitSent(r);
                for (int p = 0; p < size; p++) {
                    echo.out.set(JAVA_BYTE, p, pattern(index, r, p));
                }
                qp.post(echo.send.wrId(r));
                echo.awaitReceived(r + 1);
                verify(echo.in, index, r, "the echo to connection " + index);
                if (r + 1 < rounds) {
                    qp.post(echo.receive.wrId(r + 1));
                }
            }
            echo.awaitSent(rounds);
            id.disconnect(timeout);
            return rounds;
        }
    }

    /** A connection's two buffers, its requests, and the count of its completions of each kind. */
    private static final class Echo {
        final MemorySegment in;
        final MemorySegment out;
        final ReceiveRequest receive;
        final SendRequest send;
        private final CompletionQueue cq;
        private final Duration timeout;
        private final WorkCompletion wc = new WorkCompletion();
        private int sent;
        private int received;

        Echo(ProtectionDomain pd, CompletionQueue cq, int size, Duration timeout) {
            MemoryRegion buffer = pd.allocate(2L * size, EnumSet.of(Access.LOCAL_WRITE));
            this.in = buffer.segment().asSlice(0, size);
            this.out = buffer.segment().asSlice(size, size);
            this.receive = new ReceiveRequest().sge(buffer, 0, size);
            this.send = new SendRequest().sge(buffer, size, size);
            this.cq = cq;
            this.timeout = timeout;
        }

        /** Takes completions (sends and receives come in either order) until {@code n} receives completed. */
        void awaitReceived(int n) {
            while (received < n) {
                takeOne();
            }
        }

        /** Takes completions until {@code n} sends completed. */
        void awaitSent(int n) {
            while (sent < n) {
                takeOne();
            }
        }

        private void takeOne() {
            cq.take(wc, timeout).checkSuccess();   // RdmaTimeoutException if the peer went quiet
            if (wc.opcode() == WorkCompletionOpcode.RECV) {
                if (wc.byteLength() != in.byteSize()) {
                    throw new IllegalStateException("a message of " + wc.byteLength() + " bytes, not " + in.byteSize());
                }
                received++;
            } else {
                sent++;
            }
        }
    }

    /** Byte {@code position} of connection {@code index}'s message {@code round}: differs per connection and round. */
    static byte pattern(int index, int round, int position) {
        return (byte) (index * 31 + round * 7 + position * 13 + (position >>> 8));
    }

    private static void verify(MemorySegment got, int index, int round, String what) {
        for (int p = 0; p < got.byteSize(); p++) {
            if (got.get(JAVA_BYTE, p) != pattern(index, round, p)) {
                throw new IllegalStateException(what + ", round " + round + ": byte " + p + " is "
                        + got.get(JAVA_BYTE, p) + ", not " + pattern(index, round, p));
            }
        }
    }

    /** A connection's result; its failure as the exception it threw. */
    private static int result(Future<Integer> connection) throws Exception {
        try {
            return connection.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
