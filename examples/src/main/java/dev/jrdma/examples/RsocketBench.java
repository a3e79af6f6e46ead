// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.rsocket.RdmaServerSocketChannel;
import dev.jrdma.rsocket.RdmaSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Information, not a gate: the same two loops over rsockets ({@link RdmaSocketChannel}) and over
 * TCP ({@link SocketChannel}, TCP_NODELAY) to the same address, in one JVM: a 1-byte ping-pong
 * (the mean round trip) and a one-way stream of 64 KiB writes (throughput, the last byte
 * acknowledged). Both channels are blocking, the server side of each on its own thread.
 *
 * <pre>
 * RsocketBench ADDRESS [ROUND_TRIPS] [MEBIBYTES]    ADDRESS: an IPv4 address of an RDMA device's netdev
 * </pre>
 */
public final class RsocketBench {
    private static final int CHUNK = 64 * 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private RsocketBench() {}

    /** Runs both transports and prints a line each. */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: RsocketBench ADDRESS [ROUND_TRIPS] [MEBIBYTES]");
            System.exit(2);
        }
        InetAddress address = InetAddress.getByName(args[0]);
        int roundTrips = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        int mebibytes = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        for (String transport : new String[] {"rsocket", "tcp"}) {
            run(transport, address, roundTrips, 200, mebibytes);   // a warm-up pass first, then the measured one
        }
    }

    private static void run(String transport, InetAddress address, int roundTrips, int warmUp, int mebibytes)
            throws Exception {
        try (Listener listener = listen(transport, address)) {
            CompletableFuture<Void> server = CompletableFuture.runAsync(() -> {
                try (ByteChannel peer = listener.accept()) {
                    serve(peer, warmUp + roundTrips, (long) mebibytes << 20);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofPlatform().name(transport + " server").start(r));
            try (ByteChannel client = listener.connect()) {
                ByteBuffer one = ByteBuffer.allocateDirect(1);
                pingPong(client, one, warmUp);
                long start = System.nanoTime();
                pingPong(client, one, roundTrips);
                double microsPerRoundTrip = (System.nanoTime() - start) / 1e3 / roundTrips;
                ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK);
                start = System.nanoTime();
                for (long sent = 0; sent < (long) mebibytes << 20; sent += CHUNK) {
                    chunk.clear();
                    while (chunk.hasRemaining()) {
                        client.write(chunk);
                    }
                }
                readFully(client, one.clear());   // the server has it all
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf("%-7s 1-byte ping-pong %.1f us per round trip (%d round trips); stream %.1f MB/s"
                        + " (%d MiB in 64 KiB writes, %.2f s)%n", transport, microsPerRoundTrip, roundTrips,
                        (mebibytes << 20) / seconds / 1e6, mebibytes, seconds);
            }
            server.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    // @start region="ping-pong"
    /** The same loop for both transports: any ByteChannel. */
    private static void pingPong(ByteChannel channel, ByteBuffer one, int times) throws IOException {
        for (int i = 0; i < times; i++) {
            channel.write(one.clear());
            readFully(channel, one.clear());
        }
    }
    // @end

    /** The echo of the ping-pong, then the sink of the stream, acknowledged by one byte. */
    private static void serve(ByteChannel peer, int roundTrips, long bytes) throws IOException {
        ByteBuffer one = ByteBuffer.allocateDirect(1);
        for (int i = 0; i < roundTrips; i++) {
            readFully(peer, one.clear());
            peer.write(one.flip());
        }
        ByteBuffer sink = ByteBuffer.allocateDirect(CHUNK);
        for (long got = 0; got < bytes; ) {
            int n = peer.read(sink.clear());
            if (n < 0) {
                throw new IOException("the stream ended after " + got + " of " + bytes + " bytes");
            }
            got += n;
        }
        peer.write(one.clear());
    }

    private static void readFully(ByteChannel channel, ByteBuffer to) throws IOException {
        while (to.hasRemaining()) {
            if (channel.read(to) < 0) {
                throw new IOException("the peer closed");
            }
        }
    }

    /** A listening socket of either transport, and a client connected to it. */
    private interface Listener extends AutoCloseable {
        ByteChannel accept() throws IOException;

        ByteChannel connect() throws IOException;

        @Override
        void close() throws IOException;
    }

    private static Listener listen(String transport, InetAddress address) throws IOException {
        if (transport.equals("rsocket")) {
            RdmaServerSocketChannel server = RdmaServerSocketChannel.open().timeout(TIMEOUT)
                    .bind(new InetSocketAddress(address, 0), 1);
            InetSocketAddress at = new InetSocketAddress(address, server.getLocalAddress().getPort());
            return new Listener() {
                public ByteChannel accept() throws IOException {
                    return server.accept();
                }

                public ByteChannel connect() throws IOException {
                    RdmaSocketChannel client = RdmaSocketChannel.open().timeout(TIMEOUT)
                            .setOption(StandardSocketOptions.TCP_NODELAY, true);
                    client.connect(at);
                    return client;
                }

                public void close() throws IOException {
                    server.close();
                }
            };
        }
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(address, 0), 1);
        InetSocketAddress at = (InetSocketAddress) server.getLocalAddress();
        return new Listener() {
            public ByteChannel accept() throws IOException {
                return server.accept().setOption(StandardSocketOptions.TCP_NODELAY, true);
            }

            public ByteChannel connect() throws IOException {
                return SocketChannel.open(at).setOption(StandardSocketOptions.TCP_NODELAY, true);
            }

            public void close() throws IOException {
                server.close();
            }
        };
    }
}
