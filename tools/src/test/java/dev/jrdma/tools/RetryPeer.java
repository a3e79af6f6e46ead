// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.EndpointExchange;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.Rdma;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.WorkCompletion;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.EnumSet;

/**
 * The far end of {@link TwoNodeRetryDeviceTest}, run on node 2 by the program agent there
 * ({@link #run}; {@code main} runs it as a program of its own):
 * <pre>
 * RetryPeer idle PORT            a queue pair whose endpoint is handed out but which never leaves RESET
 * RetryPeer sink PORT SESSIONS   per TCP session a fresh RC queue pair that verifies every message
 * </pre>
 * A sink session connects its queue pair (EndpointExchange over the session's socket), then
 * verifies each SEND it receives (its size and {@link #fill}'s content for the sequence number
 * in its first byte) and answers with that sequence number on the socket, until the peer closes it.
 * The idle peer holds its queue pair until the peer closes the socket. Every wait for the test
 * (accept, the endpoint exchange, the idle peer's hold) ends after {@link #STEP} at most, and a
 * sink session ends when the test's socket closes: in an agent, nothing else would end a peer
 * whose test went away.
 */
public final class RetryPeer {
    static final int SIZE = 4096;
    static final int RECEIVES = 8;
    static final Duration STEP = Duration.ofSeconds(120);

    private RetryPeer() {}

    /** The message content of sequence number {@code seq} (0-255): seq in byte 0, then a pattern of it. */
    static void fill(MemorySegment buf, int seq) {
        buf.set(JAVA_BYTE, 0, (byte) seq);
        for (int i = 1; i < SIZE; i++) {
            buf.set(JAVA_BYTE, i, (byte) (seq * 31 + i));
        }
    }

    static int gidIndex(Context context) {
        return context.gidTable(1).stream().filter(e -> e.type() == GidType.ROCE_V2 && e.ipv4().isPresent())
                .mapToInt(GidEntry::index).findFirst().orElse(0);
    }

    static Context open() {
        String name = System.getenv().getOrDefault("JRDMA_TEST_DEVICE", "rxe0");
        return Rdma.device(name).orElseThrow(() -> new IllegalStateException("no RDMA device " + name)).open();
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /**
     * The peer as a program, the entry point a program agent calls: 0 when done, 2 (with the usage)
     * for bad arguments; a failure throws (exit 1 under java and in an agent).
     */
    public static int run(String... args) throws IOException {
        boolean idle = args.length == 2 && args[0].equals("idle");
        boolean sink = args.length == 3 && args[0].equals("sink") && args[2].matches("\\d{1,4}");
        if (!(idle || sink) || !args[1].matches("\\d{1,5}") || Integer.parseInt(args[1]) > 65535) {
            System.err.println("usage: RetryPeer idle PORT | RetryPeer sink PORT SESSIONS; got: "
                    + String.join(" ", args));
            return 2;
        }
        try (ServerSocket listener = new ServerSocket(Integer.parseInt(args[1]))) {
            listener.setSoTimeout((int) STEP.toMillis());
            if (idle) {
                idle(listener);
            } else {
                sink(listener, Integer.parseInt(args[2]));
            }
        }
        return 0;
    }

    private static void idle(ServerSocket listener) throws IOException {
        try (Context context = open(); Socket s = listener.accept()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).sourceGid(1, gidIndex(context)).build();
            EndpointExchange.exchange(s, qp.localEndpoint(), STEP);
            System.out.println("retry-peer: queue pair 0x" + Integer.toHexString(qp.qpNumber()) + " stays in "
                    + qp.state());
            // Hold the queue pair until the test is done with it.
            s.setSoTimeout((int) STEP.toMillis());
            s.getInputStream().read();
        }
    }

    private static void sink(ServerSocket listener, int sessions) throws IOException {
        long verified = 0;
        try (Context context = open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(2 * RECEIVES);
            MemoryRegion inbox = pd.allocate((long) RECEIVES * SIZE, EnumSet.of(Access.LOCAL_WRITE));
            MemorySegment expected = MemorySegment.ofArray(new byte[SIZE]);
            WorkCompletion wc = new WorkCompletion();
            for (int session = 0; session < sessions; session++) {
                try (Socket s = listener.accept();
                     QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq)
                             .maxWorkRequests(RECEIVES, RECEIVES).sourceGid(1, gidIndex(context)).build()) {
                    qp.toInit(ConnectionOptions.DEFAULTS);
                    for (int i = 0; i < RECEIVES; i++) {
                        qp.post(new ReceiveRequest().wrId(i).sge(inbox, (long) i * SIZE, SIZE));
                    }
                    EndpointExchange.connect(s, qp, ConnectionOptions.DEFAULTS, STEP);
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    s.setSoTimeout(50);
                    while (true) {
                        if (cq.poll(wc, Duration.ofMillis(200))) {
                            if (wc.qpNumber() != qp.qpNumber()) {
                                continue;   // a flushed receive of the previous session's queue pair
                            }
                            wc.checkSuccess();
                            MemorySegment got = inbox.segment().asSlice(wc.wrId() * SIZE, SIZE);
                            int seq = got.get(JAVA_BYTE, 0) & 0xff;
                            fill(expected, seq);
                            if (wc.byteLength() != SIZE || got.mismatch(expected) >= 0) {
                                throw new AssertionError("message " + seq + " arrived damaged (" + wc.byteLength()
                                        + " bytes, first difference at " + got.mismatch(expected) + ")");
                            }
                            verified++;
                            qp.post(new ReceiveRequest().wrId(wc.wrId()).sge(inbox, wc.wrId() * SIZE, SIZE));
                            out.writeInt(seq);
                            out.flush();
                            continue;
                        }
                        try {
                            if (s.getInputStream().read() < 0) {
                                break;
                            }
                        } catch (SocketTimeoutException e) {
                            // the session goes on
                        }
                    }
                    System.out.println("retry-peer: session " + session + " on queue pair 0x"
                            + Integer.toHexString(qp.qpNumber()) + " ended, " + verified + " messages verified");
                }
            }
        }
    }
}
