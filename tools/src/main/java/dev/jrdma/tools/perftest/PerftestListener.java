// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import dev.jrdma.RdmaTimeoutException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/** A bound server socket that accepts one client; separate so tests can bind port 0. */
public final class PerftestListener implements AutoCloseable {
    private final ServerSocketChannel server;

    private PerftestListener(ServerSocketChannel server) {
        this.server = server;
    }

    /** Binds {@code bindTo} with SO_REUSEADDR, backlog 1, as perftest does. */
    static PerftestListener open(SocketAddress bindTo) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(bindTo, 1);
            server.configureBlocking(false);
            return new PerftestListener(server);
        } catch (IOException e) {
            server.close();
            throw new PerftestProtocolException("listen: cannot listen on " + bindTo + ": " + e.getMessage(), e);
        }
    }

    /** The bound port. */
    public int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    /**
     * Waits for one client; the server reads first in every exchange.
     *
     * @throws RdmaTimeoutException when no client connects within {@code timeout}
     */
    public PerftestChannel accept(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Selector sel = Selector.open()) {
            server.register(sel, SelectionKey.OP_ACCEPT);
            while (true) {
                SocketChannel s = server.accept();
                if (s != null) {
                    return new PerftestChannel(s, false, timeout);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new RdmaTimeoutException(timeout, "accept: no client connected within " + TcpLink.seconds(timeout),
                            null);
                }
                sel.select(Math.max(1, left / 1_000_000));
                sel.selectedKeys().clear();
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
