// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

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
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionOpcode;
import dev.jrdma.testing.TestDevice;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * A data-integrity transfer over one RC queue pair: the sender moves a deterministic stream of
 * messages of mixed sizes (16 B to 64 KiB), each by SEND or by RDMA WRITE WITH IMMEDIATE
 * (chosen at random), and the receiver verifies every message in arrival order: its sequence
 * number (nothing lost, duplicated or reordered), its length, a CRC32C the sender computed, and
 * every byte against the content regenerated from the seed. At most {@link #WINDOW} messages
 * are in flight: the receiver acknowledges each verified message with a small SEND, which
 * frees its slot (receive buffer or write target) for reuse.
 *
 * <p>Message layout, the same in a SEND's receive buffer and in a WRITE's target slot:
 * sequence (8 B), content length (4 B), CRC32C of the content (4 B), content.
 *
 * <pre>
 * WireIntegrity receive PORT SEED BYTES [TIMEOUT RETRY]       prints "integrity: listening", then a summary
 * WireIntegrity send HOST PORT SEED BYTES [TIMEOUT RETRY]
 * </pre>
 * {@link #run} is that command line for a program agent (TwoNodeIntegrityDeviceTest's sender on
 * node 2), {@code main} for java (the fault suite). Every wait ends after {@link #STEP} at most:
 * in an agent, nothing else would end a side whose peer went away.
 */
public final class WireIntegrity {
    static final int WINDOW = 16;
    static final int MAX = 64 * 1024;
    static final int HEADER = 16;
    private static final Duration STEP = Duration.ofSeconds(120);

    /** What a finished transfer moved and how long it took. */
    public record Summary(String role, long messages, long sends, long writes, long bytes, long nanos) {
        double mibPerSecond() {
            return bytes / (1024.0 * 1024.0) / (nanos / 1e9);
        }

        @Override
        public String toString() {
            return String.format("integrity: %d messages (%d SEND, %d RDMA WRITE), %d bytes %s in %.1f s"
                    + " (%.2f MiB/s)", messages, sends, writes, bytes, role, nanos / 1e9, mibPerSecond());
        }
    }

    /** The deterministic stream: sizes, operations and contents from the seed. */
    record Plan(long seed, long totalBytes) {
        /** Message count: sizes are drawn until their sum reaches totalBytes. */
        int messages() {
            SplittableRandom r = new SplittableRandom(seed);
            long sum = 0;
            int n = 0;
            while (sum < totalBytes) {
                sum += size(r);
                r.nextBoolean();
                n++;
            }
            return n;
        }

        static int size(SplittableRandom r) {
            // Edges around the MTU and page sizes, and anything in between.
            int[] edges = {HEADER, HEADER + 1, 1023, 1024, 1025, 4096, 4097, MAX};
            return r.nextInt(3) == 0 ? edges[r.nextInt(edges.length)] : r.nextInt(HEADER, MAX + 1);
        }

        static void fill(MemorySegment slot, long seed, long seq, int length) {
            byte[] content = content(seed, seq, length - HEADER);
            CRC32C crc = new CRC32C();
            crc.update(content);
            slot.set(JAVA_LONG_UNALIGNED, 0, seq);
            slot.set(JAVA_INT_UNALIGNED, 8, content.length);
            slot.set(JAVA_INT_UNALIGNED, 12, (int) crc.getValue());
            MemorySegment.copy(content, 0, slot, JAVA_BYTE, HEADER, content.length);
        }

        static byte[] content(long seed, long seq, int length) {
            byte[] b = new byte[length];
            new SplittableRandom(seed * 31 + seq).nextBytes(b);
            return b;
        }
    }

    private WireIntegrity() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /**
     * The transfer as a program, the entry point a program agent calls: 0 when done, 2 (with the
     * usage) for bad arguments; a failure throws (exit 1 under java and in an agent).
     */
    public static int run(String... args) throws IOException {
        boolean send = args.length > 0 && args[0].equals("send");
        boolean receive = args.length > 0 && args[0].equals("receive");
        int fixed = send ? 5 : 4;
        if (!(send || receive) || args.length != fixed && args.length != fixed + 2) {
            return usage("got: " + String.join(" ", args));
        }
        ConnectionOptions options = ConnectionOptions.DEFAULTS;
        int port;
        long seed;
        long bytes;
        try {
            if (args.length == fixed + 2) {
                options = options.withTimeout(Integer.parseInt(args[fixed]), Integer.parseInt(args[fixed + 1]));
            }
            port = Integer.parseInt(args[fixed - 3]);
            seed = Long.parseLong(args[fixed - 2]);
            bytes = Long.parseLong(args[fixed - 1]);
        } catch (NumberFormatException e) {
            return usage("not a number: " + e.getMessage());
        }
        if (send) {
            System.out.println(send(args[1], port, seed, bytes, options));
        } else {
            try (ServerSocket listener = new ServerSocket(port)) {
                System.out.println("integrity: listening");
                System.out.println(receive(listener, seed, bytes, options));
            }
        }
        return 0;
    }

    private static int usage(String problem) {
        System.err.println("usage: WireIntegrity receive PORT SEED BYTES [TIMEOUT RETRY]"
                + " | WireIntegrity send HOST PORT SEED BYTES [TIMEOUT RETRY]; " + problem);
        return 2;
    }

    private static Context open() {
        String name = TestDevice.name();
        return Rdma.device(name).orElseThrow(() -> new IllegalStateException("no RDMA device " + name)).open();
    }

    /** What both sides count for their summary, from the moment the tally begins. */
    private static final class Tally {
        private final long start = System.nanoTime();
        private long bytes;
        private long sends;

        /** One message of {@code size} bytes, a SEND or (not {@code send}) an RDMA WRITE. */
        void add(int size, boolean send) {
            bytes += size;
            if (send) {
                sends++;
            }
        }

        Summary summary(String role, long messages) {
            return new Summary(role, messages, sends, messages - sends, bytes, System.nanoTime() - start);
        }
    }

    /** INIT for {@code qp}, then WINDOW receives posted, receive i into slot i of {@code into}. */
    private static void initWithReceives(QueuePair qp, Context context, ConnectionOptions options, MemoryRegion into,
                                         int slot) {
        qp.toInit(options);
        for (int i = 0; i < WINDOW; i++) {
            qp.post(new ReceiveRequest().wrId(i).sge(into, (long) i * slot, slot));
        }
    }

    private static int gidIndex(Context context) {
        return context.gidTable(1).stream().filter(e -> e.type() == GidType.ROCE_V2 && e.ipv4().isPresent())
                .mapToInt(GidEntry::index).findFirst().orElse(0);
    }

    /** The receiving side: verifies every message; throws AssertionError naming the first bad one. */
    public static Summary receive(ServerSocket listener, long seed, long totalBytes, ConnectionOptions options)
            throws IOException {
        Plan plan = new Plan(seed, totalBytes);
        int n = plan.messages();
        try (Context context = open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4 * WINDOW);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(2 * WINDOW, 2 * WINDOW)
                    .sourceGid(1, gidIndex(context)).build();
            MemoryRegion inbox = pd.allocate((long) WINDOW * MAX, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion target = pd.allocate((long) WINDOW * MAX, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion acks = pd.allocate((long) WINDOW * 8, EnumSet.of(Access.LOCAL_WRITE));
            initWithReceives(qp, context, options, inbox, MAX);
            try (Socket s = accept(listener)) {
                EndpointExchange.connect(s, qp, options, STEP);
                new DataOutputStream(s.getOutputStream()).write(target.remote().toBytes());
                SplittableRandom r = new SplittableRandom(seed);
                WorkCompletion wc = new WorkCompletion();
                Tally tally = new Tally();
                int acksInFlight = 0;
                for (long seq = 0; seq < n; ) {
                    cq.take(wc, STEP).checkSuccess();
                    if (wc.opcode() == WorkCompletionOpcode.SEND) {
                        acksInFlight--;
                        continue;
                    }
                    int size = Plan.size(r);
                    boolean write = r.nextBoolean();
                    int slot = (int) wc.wrId();
                    MemorySegment message;
                    if (wc.opcode() == WorkCompletionOpcode.RECV_RDMA_WITH_IMM) {
                        check(write, seq, "arrived as an RDMA WRITE, sent as a SEND");
                        check(wc.immediateData() == (int) seq, seq, "immediate data " + wc.immediateData());
                        message = target.segment().asSlice((seq % WINDOW) * MAX, MAX);
                    } else {
                        check(!write, seq, "arrived as a SEND, sent as an RDMA WRITE");
                        check(wc.byteLength() == size, seq, "length " + wc.byteLength() + ", sent " + size);
                        message = inbox.segment().asSlice((long) slot * MAX, MAX);
                    }
                    verify(message, seed, seq, size);
                    tally.add(size, !write);
                    qp.post(new ReceiveRequest().wrId(slot).sge(inbox, (long) slot * MAX, MAX));
                    int ackSlot = (int) (seq % WINDOW);
                    acks.segment().set(JAVA_LONG_UNALIGNED, ackSlot * 8L, seq);
                    qp.post(new SendRequest().wrId(seq).sge(acks, ackSlot * 8L, 8));
                    acksInFlight++;
                    seq++;
                }
                while (acksInFlight > 0) {
                    cq.take(wc, STEP).checkSuccess();
                    acksInFlight--;
                }
                // The sender closes the socket once it has every acknowledgement: wait for it, so that
                // this side's QP is not destroyed under the last acknowledgements.
                s.setSoTimeout((int) STEP.toMillis());
                s.getInputStream().read();
                return tally.summary("verified", n);
            }
        }
    }

    private static Socket accept(ServerSocket listener) throws IOException {
        listener.setSoTimeout((int) STEP.toMillis());
        return listener.accept();
    }

    private static void verify(MemorySegment message, long seed, long seq, int size) {
        long gotSeq = message.get(JAVA_LONG_UNALIGNED, 0);
        check(gotSeq == seq, seq, "carries sequence number " + gotSeq + " (lost, duplicated or reordered)");
        int length = message.get(JAVA_INT_UNALIGNED, 8);
        check(length == size - HEADER, seq, "content length " + length + ", expected " + (size - HEADER));
        byte[] got = message.asSlice(HEADER, length).toArray(JAVA_BYTE);
        CRC32C crc = new CRC32C();
        crc.update(got);
        check((int) crc.getValue() == message.get(JAVA_INT_UNALIGNED, 12), seq, "CRC32C mismatch");
        byte[] expected = Plan.content(seed, seq, length);
        int mismatch = java.util.Arrays.mismatch(got, expected);
        check(mismatch < 0, seq, "byte " + mismatch + " differs from what was sent");
    }

    private static void check(boolean ok, long seq, String what) {
        if (!ok) {
            throw new AssertionError("message " + seq + ": " + what);
        }
    }

    /** The sending side: returns when the receiver has acknowledged every message. */
    public static Summary send(String host, int port, long seed, long totalBytes, ConnectionOptions options)
            throws IOException {
        Plan plan = new Plan(seed, totalBytes);
        int n = plan.messages();
        try (Context context = open(); Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), (int) STEP.toMillis());
            s.setSoTimeout((int) STEP.toMillis());
            ProtectionDomain pd = context.allocateProtectionDomain();
            CompletionQueue cq = context.createCompletionQueue(4 * WINDOW);
            QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq).maxWorkRequests(2 * WINDOW, 2 * WINDOW)
                    .sourceGid(1, gidIndex(context)).build();
            MemoryRegion source = pd.allocate((long) WINDOW * MAX, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion acks = pd.allocate((long) WINDOW * 8, EnumSet.of(Access.LOCAL_WRITE));
            initWithReceives(qp, context, options, acks, 8);
            EndpointExchange.connect(s, qp, options, STEP);
            RemoteMemory target = RemoteMemory.fromBytes(new DataInputStream(s.getInputStream())
                    .readNBytes(RemoteMemory.BYTES));
            SplittableRandom r = new SplittableRandom(seed);
            WorkCompletion wc = new WorkCompletion();
            Tally tally = new Tally();
            long acked = 0;
            long posted = 0;
            long sendsDone = 0;
            while (acked < n || sendsDone < posted) {
                while (posted < n && posted - acked < WINDOW) {
                    int size = Plan.size(r);
                    boolean write = r.nextBoolean();
                    long slot = (posted % WINDOW) * MAX;
                    Plan.fill(source.segment().asSlice(slot, size), seed, posted, size);
                    SendRequest wr = new SendRequest().wrId(posted).sge(source, slot, size);
                    if (write) {
                        wr.opcode(SendOpcode.RDMA_WRITE_WITH_IMM).immediateData((int) posted)
                                .remote(target.slice((posted % WINDOW) * MAX, size));
                    }
                    qp.post(wr);
                    tally.add(size, !write);
                    posted++;
                }
                cq.take(wc, STEP).checkSuccess();
                if (wc.opcode() == WorkCompletionOpcode.RECV) {
                    long seq = acks.segment().get(JAVA_LONG_UNALIGNED, wc.wrId() * 8);
                    if (seq != acked) {
                        throw new AssertionError("acknowledgement " + seq + ", expected " + acked);
                    }
                    acked++;
                    qp.post(new ReceiveRequest().wrId(wc.wrId()).sge(acks, wc.wrId() * 8, 8));
                } else {
                    sendsDone++;
                }
            }
            return tally.summary("sent and acknowledged", n);
        }
    }
}
