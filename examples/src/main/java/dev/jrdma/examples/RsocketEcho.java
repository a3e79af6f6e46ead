// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Context;
import dev.jrdma.rsocket.RdmaServerSocketChannel;
import dev.jrdma.rsocket.RdmaSocketChannel;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * An echo service over RDMA sockets (librdmacm's rsockets): plain blocking socket code, with
 * the bytes moved by RDMA writes underneath. The server serves each connection on a virtual
 * thread of its own with the channel API ({@link RdmaSocketChannel#read}/{@code write}); the
 * client opens its connections on virtual threads and talks through the stream adapters
 * ({@code outputStream()}/{@code inputStream()}), checking every byte of every echo.
 *
 * <pre>
 * RsocketEcho --port P [--connections 4] [--device D] [--timeout S]
 *     the server: serves that many connections, then exits
 * RsocketEcho HOST --port P [--connections 4] [--rounds 10] [--size 4096] [--device D] [--timeout S]
 *     the client: that many connections at once, each rounds round trips of size bytes
 * </pre>
 *
 * <p>The port is an rdma_cm port (rsockets listen through rdma_cm), not a TCP port.
 */
public final class RsocketEcho {
    static final String USAGE = "RsocketEcho [HOST] --port P [--connections N] [--rounds R] [--size BYTES]"
            + " [--device D] [--timeout SECONDS]   (without HOST: the server, which serves N connections)";

    private RsocketEcho() {}

    /** Runs the example with the arguments in the class comment; exits with 0, 1 (failed) or 2 (usage). */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        return Cli.run(USAGE, Map.of("--connections", 4, "--rounds", 10, "--size", 4096), args,
                RsocketEcho::server, RsocketEcho::client);
    }

    private static void server(Cli.Options options) throws Exception {
        InetAddress address = InetAddress.getByName("0.0.0.0");   // every RDMA device's address
        if (options.device().isPresent()) {
            try (Context context = options.openDevice()) {
                address = context.defaultGid().ipv4().orElseThrow(() -> new IllegalStateException(
                        context.name() + " has no IPv4 address in its GID table"));
            }
        }
        int connections = options.number("--connections");
        // @start region="rsocket-server"
        try (RdmaServerSocketChannel server = RdmaServerSocketChannel.open().timeout(options.timeout())
                .bind(new InetSocketAddress(address, options.port()), connections);
             ExecutorService perConnection = Executors.newVirtualThreadPerTaskExecutor()) {
            System.out.println("server: listening on " + address.getHostAddress() + " port " + options.port());
            List<Future<Long>> served = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                RdmaSocketChannel connection = server.accept();   // waits at most --timeout
                served.add(perConnection.submit(() -> echo(connection)));
            }
            long bytes = 0;
            for (Future<Long> connection : served) {
                bytes += result(connection);
            }
            System.out.println("server: served " + connections + " connections, " + bytes + " bytes echoed");
        }
        // @end
    }

    // @start region="rsocket-echo"
    /** One connection, on its own virtual thread: echo until the client shuts its output down. */
    private static long echo(RdmaSocketChannel connection) throws IOException {
        try (connection) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
            long echoed = 0;
            while (connection.read(buffer) >= 0) {   // -1: the client shut its output down
                buffer.flip();
                echoed += connection.write(buffer);   // blocking: writes all of it
                buffer.clear();
            }
            return echoed;
        }
    }
    // @end

    private static void client(Cli.Options options) throws Exception {
        InetSocketAddress server = new InetSocketAddress(options.host().orElseThrow(), options.port());
        int connections = options.number("--connections");
        int rounds = options.number("--rounds");
        int size = options.number("--size");
        long start = System.nanoTime();
        try (ExecutorService perConnection = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Long>> done = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                int index = i;
                done.add(perConnection.submit(() -> talk(server, index, rounds, size, options)));
            }
            for (Future<Long> connection : done) {
                result(connection);
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("client: " + connections + " connections, " + connections * rounds + " round trips of "
                + size + " bytes verified in " + millis + " ms");
    }

    // @start region="rsocket-client"
    /** One connection: rounds messages out through the OutputStream, each echo back and checked. */
    private static long talk(InetSocketAddress server, int index, int rounds, int size, Cli.Options options)
            throws IOException {
        try (RdmaSocketChannel channel = RdmaSocketChannel.open().timeout(options.timeout())) {
            channel.connect(server);   // blocking, within the timeout
            OutputStream out = channel.outputStream();
            DataInputStream in = new DataInputStream(channel.inputStream());
            byte[] sent = new byte[size];
            byte[] back = new byte[size];
            for (int round = 0; round < rounds; round++) {
                Arrays.fill(sent, (byte) (index * 31 + round));
                out.write(sent);
                in.readFully(back);
                if (!Arrays.equals(sent, back)) {
                    throw new IOException("connection " + index + ", round " + round + ": the echo differs");
                }
            }
            channel.shutdownOutput();   // the server reads end-of-stream and closes
            return (long) rounds * size;
        }
    }
    // @end

    private static long result(Future<Long> future) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
