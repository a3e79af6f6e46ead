// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.research.jucx;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpConnectionRequest;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpListener;
import org.openucx.jucx.ucp.UcpListenerParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * perftest's send_lat and write_bw written as a JUCX user would write them, printing perftest's
 * report rows so scripts/perf-compare reads all three tools the same way.
 *
 * <p>{@code lat}: a tagged-message ping-pong of {@code -s} bytes; the client posts its receive,
 * sends, and waits for the echo; latency is half a round trip, t_typical its median (perftest's
 * definition). {@code bw}: the client streams {@code -n} puts of {@code -s} bytes into the
 * server's registered region with at most {@code --tx-depth} requests outstanding (perftest's
 * window), then flushes the endpoint so every put reached the peer; the rate is taken from the
 * first measured put to the end of the flush. Both first run {@code --warmup} untimed
 * iterations on the same connection, so the measured ones run C2-compiled code, as jrdma's
 * own warm-up gives it. Every wait is bounded by {@code --timeout} seconds.
 *
 * <p>Connection: UCX's socket-address connection manager (rdma_cm) to {@code --addr:--port}.
 */
public final class JucxPerf {
    private static final long TAG = 0x5eed;
    private static final long SETUP_TAG = 0x5e70;
    private static final long DONE_TAG = 0xd0e;
    private static final UcxCallback NO_CALLBACK = new UcxCallback();

    private final boolean server;
    private final String test;
    private final InetSocketAddress address;
    private final int size;
    private final int iterations;
    private final int warmup;
    private final int txDepth;
    private final long timeoutNanos;

    private JucxPerf(String[] args) {
        String t = null, host = null;
        int port = 18516, s = 2, n = 1000, w = 20000, depth = 128, timeout = 120;
        Boolean isServer = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "lat", "bw" -> t = a;
                case "--server" -> isServer = true;
                case "--client" -> isServer = false;
                case "--addr" -> host = value(args, ++i, a);
                case "--port" -> port = number(args, ++i, a);
                case "-s" -> s = number(args, ++i, a);
                case "-n" -> n = number(args, ++i, a);
                case "--warmup" -> w = number(args, ++i, a);
                case "--tx-depth" -> depth = number(args, ++i, a);
                case "--timeout" -> timeout = number(args, ++i, a);
                default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
            }
        }
        if (t == null || isServer == null || host == null) {
            throw new IllegalArgumentException(
                    "usage: JucxPerf lat|bw --server|--client --addr IP [--port P] [-s BYTES] [-n ITERS] [--warmup N] [--tx-depth N] [--timeout S]");
        }
        if (s < 1 || n < 1 || w < 0 || depth < 1 || timeout < 1) {
            throw new IllegalArgumentException("-s, -n, --tx-depth and --timeout must be positive, --warmup not negative");
        }
        test = t;
        server = isServer;
        address = new InetSocketAddress(host, port);
        size = s;
        iterations = n;
        warmup = w;
        txDepth = depth;
        timeoutNanos = timeout * 1_000_000_000L;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int number(String[] args, int i, String option) {
        String v = value(args, i, option);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number, got '" + v + "'");
        }
    }

    public static void main(String[] args) throws Exception {
        JucxPerf perf;
        try {
            perf = new JucxPerf(args);
        } catch (IllegalArgumentException e) {
            System.err.println("jucx-perf: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            perf.run();
        } catch (TimeoutError e) {
            System.err.println("jucx-perf: " + e.getMessage());
            System.exit(1);
        }
    }

    /** A bounded wait ran out: the peer is gone or the transport hangs. */
    private static final class TimeoutError extends RuntimeException {
        TimeoutError(String what, long seconds) {
            super("no " + what + " within " + seconds + " s");
        }
    }

    private void run() throws Exception {
        UcpParams params = new UcpParams().requestTagFeature().requestRmaFeature();
        try (UcpContext context = new UcpContext(params);
             UcpWorker worker = context.newWorker(new UcpWorkerParams())) {
            if (server) {
                AtomicReference<UcpConnectionRequest> request = new AtomicReference<>();
                try (UcpListener listener = worker.newListener(new UcpListenerParams()
                        .setSockAddr(address).setConnectionHandler(request::set))) {
                    // perf-compare waits for this line before it starts the client.
                    System.out.println("jucx-perf: listening on " + listener.getAddress());
                    System.out.flush();
                    long deadline = System.nanoTime() + timeoutNanos;
                    while (request.get() == null) {
                        worker.progress();
                        checkDeadline(deadline, "connection request");
                    }
                    UcpEndpoint endpoint = worker.newEndpoint(new UcpEndpointParams()
                            .setConnectionRequest(request.get()).setPeerErrorHandlingMode());
                    serve(context, worker, endpoint);
                    close(worker, endpoint);
                }
            } else {
                UcpEndpoint endpoint = worker.newEndpoint(new UcpEndpointParams()
                        .setSocketAddress(address).setPeerErrorHandlingMode());
                drive(context, worker, endpoint);
                close(worker, endpoint);
            }
        }
    }

    private void serve(UcpContext context, UcpWorker worker, UcpEndpoint endpoint) throws Exception {
        if (test.equals("lat")) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(size);
            for (int i = 0, total = warmup + iterations; i < total; i++) {
                await(worker, worker.recvTaggedNonBlocking(buffer, TAG, -1L, NO_CALLBACK), "ping");
                buffer.clear();
                await(worker, endpoint.sendTaggedNonBlocking(buffer, TAG, NO_CALLBACK), "pong's send");
                buffer.clear();
            }
            return;
        }
        // bw: expose a region, tell the client where it is, wait until it is done writing.
        ByteBuffer region = ByteBuffer.allocateDirect(size);
        try (UcpMemory memory = context.registerMemory(region)) {
            ByteBuffer rkey = memory.getRemoteKeyBuffer();
            ByteBuffer setup = ByteBuffer.allocateDirect(12 + rkey.remaining()).order(ByteOrder.LITTLE_ENDIAN);
            setup.putLong(memory.getAddress()).putInt(rkey.remaining()).put(rkey).flip();
            await(worker, endpoint.sendTaggedNonBlocking(setup, SETUP_TAG, NO_CALLBACK), "region's send");
            ByteBuffer done = ByteBuffer.allocateDirect(8);
            await(worker, worker.recvTaggedNonBlocking(done, DONE_TAG, -1L, NO_CALLBACK), "client's end");
        }
    }

    private void drive(UcpContext context, UcpWorker worker, UcpEndpoint endpoint) throws Exception {
        if (test.equals("lat")) {
            ByteBuffer send = ByteBuffer.allocateDirect(size);
            ByteBuffer receive = ByteBuffer.allocateDirect(size);
            long[] halfRoundTrips = new long[iterations];
            for (int i = 0, total = warmup + iterations; i < total; i++) {
                long start = System.nanoTime();
                UcpRequest pong = worker.recvTaggedNonBlocking(receive, TAG, -1L, NO_CALLBACK);
                UcpRequest ping = endpoint.sendTaggedNonBlocking(send, TAG, NO_CALLBACK);
                await(worker, pong, "pong");
                await(worker, ping, "ping's send");
                long end = System.nanoTime();
                send.clear();
                receive.clear();
                if (i >= warmup) {
                    halfRoundTrips[i - warmup] = (end - start) / 2;
                }
            }
            printLatency(halfRoundTrips);
            return;
        }
        ByteBuffer setup = ByteBuffer.allocateDirect(4096);
        await(worker, worker.recvTaggedNonBlocking(setup, SETUP_TAG, -1L, NO_CALLBACK), "server's region");
        setup.order(ByteOrder.LITTLE_ENDIAN);
        long remoteAddress = setup.getLong(0);
        int rkeyLength = setup.getInt(8);
        ByteBuffer rkeyBuffer = ByteBuffer.allocateDirect(rkeyLength);
        rkeyBuffer.put(setup.slice(12, rkeyLength)).flip();
        ByteBuffer local = ByteBuffer.allocateDirect(size);
        try (UcpMemory memory = context.registerMemory(local);
             UcpRemoteKey rkey = endpoint.unpackRemoteKey(rkeyBuffer)) {
            long localAddress = memory.getAddress();
            UcpRequest[] window = new UcpRequest[txDepth];
            long start = 0;
            for (int i = 0, total = warmup + iterations; i < total; i++) {
                if (i == warmup) {
                    drain(worker, window);
                    await(worker, endpoint.flushNonBlocking(NO_CALLBACK), "warm-up's flush");
                    start = System.nanoTime();
                }
                int slot = i % txDepth;
                if (window[slot] != null) {
                    await(worker, window[slot], "put");
                }
                window[slot] = endpoint.putNonBlocking(localAddress, size, remoteAddress, rkey, NO_CALLBACK);
                worker.progress();
            }
            drain(worker, window);
            await(worker, endpoint.flushNonBlocking(NO_CALLBACK), "flush");
            long elapsed = System.nanoTime() - start;
            printBandwidth(elapsed);
        }
        ByteBuffer done = ByteBuffer.allocateDirect(8);
        await(worker, endpoint.sendTaggedNonBlocking(done, DONE_TAG, NO_CALLBACK), "end's send");
    }

    private void drain(UcpWorker worker, UcpRequest[] window) throws Exception {
        for (int j = 0; j < window.length; j++) {
            if (window[j] != null) {
                await(worker, window[j], "put");
                window[j] = null;
            }
        }
    }

    private void await(UcpWorker worker, UcpRequest request, String what) throws Exception {
        if (request.isCompleted()) {
            checkStatus(request, what);
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (!request.isCompleted()) {
            worker.progress();
            checkDeadline(deadline, what);
        }
        checkStatus(request, what);
    }

    private static void checkStatus(UcpRequest request, String what) {
        if (request.getStatus() != 0) {
            throw new IllegalStateException(what + " failed with UCS status " + request.getStatus());
        }
    }

    private void checkDeadline(long deadline, String what) {
        if (System.nanoTime() - deadline > 0) {
            throw new TimeoutError(what, timeoutNanos / 1_000_000_000L);
        }
    }

    private void close(UcpWorker worker, UcpEndpoint endpoint) {
        UcpRequest closing = endpoint.closeNonBlockingFlush();
        long deadline = System.nanoTime() + 5_000_000_000L;
        // A peer that already left makes the flush fail or never end: closing is best effort.
        while (!closing.isCompleted() && System.nanoTime() - deadline < 0) {
            try {
                worker.progress();
            } catch (Exception e) {
                return;
            }
        }
    }

    private void printLatency(long[] nanos) {
        Arrays.sort(nanos);
        double[] us = Arrays.stream(nanos).mapToDouble(v -> v / 1000.0).toArray();
        double avg = Arrays.stream(us).average().orElse(0);
        double var = Arrays.stream(us).map(v -> (v - avg) * (v - avg)).sum() / us.length;
        System.out.println(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
                + "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]");
        System.out.println(String.format(Locale.ROOT, " %-7d %-10d %-14.2f %-12.2f %-18.2f %-15.2f %-15.2f %-23.2f %.2f",
                size, iterations, us[0], us[us.length - 1], us[us.length / 2], avg, Math.sqrt(var),
                us[percentile(us.length, 0.99)], us[percentile(us.length, 0.999)]));
    }

    private static int percentile(int n, double p) {
        return Math.min(n - 1, (int) Math.ceil(p * n) - 1);
    }

    private void printBandwidth(long nanos) {
        double seconds = nanos / 1e9;
        double mib = (double) size * iterations / (1 << 20) / seconds;
        double mpps = iterations / seconds / 1e6;
        // perftest's MB is 2^20 bytes; one timed interval, so the peak is the average.
        System.out.println(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]");
        System.out.println(String.format(Locale.ROOT, " %-10d %-14d %-18.2f %-20.2f %.6f",
                size, iterations, mib, mib, mpps));
    }
}
