package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.bindings.generated.ibv_wc;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The README's first command, until the perftest-style CLI exists: a SEND/RECV ping-pong
 * between two RC queue pairs on one device, on the raw bindings, printing each step.
 * Usage: RawLoopbackDemo [iterations]   (device: $JRDMA_TEST_DEVICE or the first one)
 */
public final class RawLoopbackDemo {
    private RawLoopbackDemo() {}

    public static void main(String[] args) {
        int iterations = args.length > 0 ? parseIterations(args[0]) : 1000;
        String device;
        try {
            device = RawDevices.testDevice();
        } catch (AssertionError e) {
            System.err.println("jrdma demo: no RDMA device (scripts/demo runs this in the Soft-RoCE VM)");
            System.exit(1);
            return;
        }
        try (RawRcLoopback rc = new RawRcLoopback(device, m -> System.out.println("  " + m))) {
            byte[] hello = "Hello, RDMA!".getBytes(StandardCharsets.US_ASCII);
            MemorySegment out = rc.half(0).asSlice(0, hello.length);
            MemorySegment in = rc.half(1).asSlice(0, 64);
            out.copyFrom(MemorySegment.ofArray(hello));
            rc.postRecv(1, 1, in, rc.lkey());
            rc.postSend(0, 2, IBV_WR_SEND(), out, rc.lkey(), 0, 0);
            int received = awaitReceive(rc);
            System.out.printf("  QP 0x%x sent %d bytes, QP 0x%x received: \"%s\"%n", rc.qpn(0), hello.length,
                    rc.qpn(1), new String(in.asSlice(0, received).toArray(JAVA_BYTE), StandardCharsets.US_ASCII));

            // Ping-pong: A sends, B's receive completes, B sends back, A's receive completes.
            MemorySegment a = rc.half(0).asSlice(1024, 2);
            MemorySegment b = rc.half(1).asSlice(1024, 2);
            long[] roundTrips = new long[iterations];
            rc.postRecv(1, 1, b, rc.lkey());
            for (int i = 0; i < iterations; i++) {
                long start = System.nanoTime();
                rc.postRecv(0, 1, a, rc.lkey());
                rc.postSend(0, 2, IBV_WR_SEND(), a, rc.lkey(), 0, 0);
                awaitReceive(rc);
                rc.postRecv(1, 1, b, rc.lkey());
                rc.postSend(1, 2, IBV_WR_SEND(), b, rc.lkey(), 0, 0);
                awaitReceive(rc);
                roundTrips[i] = System.nanoTime() - start;
            }
            Arrays.sort(roundTrips);
            System.out.printf("  %d SEND/RECV round trips of 2 bytes: min %.2f us, median %.2f us, max %.2f us%n",
                    iterations, roundTrips[0] / 1e3, roundTrips[iterations / 2] / 1e3,
                    roundTrips[iterations - 1] / 1e3);
            System.out.println("  (Raw bindings, Java-side timing of two sends per round trip; the perftest-style"
                    + " jrdma CLI will replace this demo.)");
        }
    }

    /** Waits for the next RECV completion, consuming the SEND completions on the way; returns byte_len. */
    private static int awaitReceive(RawRcLoopback rc) {
        while (true) {
            MemorySegment wc = rc.pollOne();
            int status = ibv_wc.status(wc);
            if (status != IBV_WC_SUCCESS()) {
                throw new IllegalStateException("work completion failed: " + RawRcLoopback.statusText(status));
            }
            if (ibv_wc.opcode(wc) == IBV_WC_RECV()) {
                return ibv_wc.byte_len(wc);
            }
        }
    }

    private static int parseIterations(String s) {
        try {
            int n = Integer.parseInt(s);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        System.err.println("jrdma demo: iterations must be a positive integer, got '" + s + "'");
        System.exit(2);
        return 0;
    }
}
