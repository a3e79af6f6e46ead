// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import dev.jrdma.RdmaTimeoutException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import jdk.net.ExtendedSocketOptions;

/**
 * The TCP transport of a {@link PerftestChannel}: one non-blocking socket and its selector, so
 * that connect, every read and every write wait at most their deadline. It moves bytes only;
 * what the messages mean, and their lock-step order, is the channel's. The -R transport is an
 * {@link RdmaCmLink}.
 *
 * <p>Not thread-safe; the channel's one thread drives it.
 */
final class TcpLink implements AutoCloseable {
    private final SocketChannel socket;
    private final Duration timeout;
    private final Selector selector;

    /** The first pause after a refused connect; the pauses double up to the second constant. */
    private static final long REFUSED_FIRST_PAUSE_MS = 50;
    private static final long REFUSED_MAX_PAUSE_MS = 1_000;

    TcpLink(SocketChannel socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.timeout = timeout;
        socket.configureBlocking(false);
        socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
        keepAlive(socket, timeout);
        this.selector = Selector.open();
    }

    /**
     * TCP keepalive tuned to the timeout, so that a peer whose host vanishes without closing
     * the connection is noticed while this side waits for the peer's measurement run
     * ({@link PerftestChannel#expectPeerRun}): the peer's kernel answers the probes however long
     * its run takes. Linux reports ETIMEDOUT on the read after idle + count x interval of silence.
     */
    private static void keepAlive(SocketChannel socket, Duration timeout) throws IOException {
        socket.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        if (socket.supportedOptions().contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
            int seconds = (int) Math.max(3, Math.min(timeout.toSeconds(), 32_767));
            socket.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, Math.max(1, seconds / 2));
            socket.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, Math.max(1, seconds / 6));
            socket.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
        }
    }

    /** See {@link PerftestChannel#connect(String, int, Duration, InetSocketAddress, boolean)}. */
    static TcpLink connect(String host, int port, Duration timeout, InetSocketAddress source, boolean ipv6)
            throws IOException {
        Objects.requireNonNull(host, "host");
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new PerftestProtocolException("connect: cannot resolve host '" + host + "'");
        }
        if (ipv6) {
            java.net.InetAddress v6 = null;
            for (java.net.InetAddress a : java.net.InetAddress.getAllByName(host)) {
                if (a instanceof java.net.Inet6Address) {
                    v6 = a;
                    break;
                }
            }
            if (v6 == null) {
                throw new PerftestProtocolException("connect: --ipv6-addr: host '" + host + "' has no IPv6 address");
            }
            address = new InetSocketAddress(v6, port);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        long pauseMillis = REFUSED_FIRST_PAUSE_MS;
        while (true) {
            try {
                return attempt(address, host, port, timeout, deadline, source);
            } catch (ConnectException refused) {
                // Nothing listens yet: a jrdma server opens its port only after its warm-up,
                // which a client started beside it may finish first. Try again until the
                // deadline, as long as the refusal lasts; any other failure ends at once.
                long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
                if (leftMillis <= 0) {
                    throw new PerftestProtocolException("connect: cannot connect to " + host + ":" + port + ": "
                            + refused.getMessage() + " (tried for " + seconds(timeout)
                            + ": is the server running?)", refused);
                }
                sleep(Math.min(pauseMillis, leftMillis));
                pauseMillis = Math.min(pauseMillis * 2, REFUSED_MAX_PAUSE_MS);
            }
        }
    }

    /** One connect: the link, or ConnectException when the peer refuses it (nothing listens). */
    private static TcpLink attempt(InetSocketAddress address, String host, int port, Duration timeout, long deadline,
                                   InetSocketAddress source) throws IOException {
        SocketChannel socket = SocketChannel.open();
        try {
            if (source != null) {
                socket.bind(source);
            }
            socket.configureBlocking(false);
            if (!socket.connect(address)) {
                try (Selector sel = Selector.open()) {
                    socket.register(sel, SelectionKey.OP_CONNECT);
                    while (!socket.finishConnect()) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new RdmaTimeoutException(timeout, "connect: no answer from " + host + ":" + port
                                    + " within " + seconds(timeout) + " (is the server running?)", null);
                        }
                        sel.select(Math.max(1, left / 1_000_000));
                        sel.selectedKeys().clear();
                    }
                }
            }
            return new TcpLink(socket, timeout);
        } catch (ConnectException | PerftestProtocolException | RdmaTimeoutException e) {
            socket.close();
            throw e;
        } catch (IOException e) {
            socket.close();
            throw new PerftestProtocolException("connect: cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("connect: interrupted while waiting for the server to listen");
        }
    }

    /** See {@link PerftestChannel#peerHasSent()}. */
    boolean peerHasSent() throws IOException {
        try (var _ = register(SelectionKey.OP_READ)) {
            boolean ready = selector.selectNow() > 0;
            selector.selectedKeys().clear();
            return ready;
        }
    }

    /** The socket registered with the selector for {@code ops} until closed (a channel has one key per selector). */
    private Registration register(int ops) throws IOException {
        return new Registration(socket.register(selector, ops), selector);
    }

    private record Registration(SelectionKey key, Selector selector) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            key.cancel();
            selector.selectNow();
        }
    }

    /**
     * Best effort: reads the peer's "done" (perftest writes it but never reads ours) so that our
     * close is a FIN, not a reset for unread data. Errors and silence are ignored.
     */
    void drainDone() {
        try {
            socket.shutdownOutput();
            ByteBuffer buf = ByteBuffer.allocate(64);
            long deadline = System.nanoTime() + Math.min(timeout.toNanos(), 1_000_000_000L);
            try (var _ = register(SelectionKey.OP_READ)) {
                while (buf.hasRemaining() && System.nanoTime() < deadline) {
                    int n = socket.read(buf);
                    if (n < 0) {
                        break;
                    }
                    if (n == 0) {
                        selector.select(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                        selector.selectedKeys().clear();
                    }
                }
            }
        } catch (IOException ignored) {
            // the run is over; a peer that already went away is fine
        }
    }

    /** Writes one message, all of it, within the timeout. */
    void send(String step, byte[] data) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(data);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (var _ = register(SelectionKey.OP_WRITE)) {
            while (buf.hasRemaining()) {
                if (socket.write(buf) == 0) {
                    await(step, "write timed out after " + seconds(timeout) + " (peer gone, or not in step: do both sides run the same test with the same -a, -b, -D and -q?)",
                            timeout, deadline);
                }
            }
        } catch (PerftestProtocolException e) {
            throw e;
        } catch (IOException e) {
            throw new PerftestProtocolException(step + ": write to peer failed: " + e.getMessage(), e);
        }
    }

    /**
     * Reads one {@code length}-byte message within the timeout or, when {@code running} (the
     * peer answers after its measurement run), within {@code runLimit} until its first byte
     * (null: for as long as the connection is alive), then within the timeout.
     */
    byte[] receive(String step, int length, boolean running, Duration runLimit) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(length);
        Duration limit = running ? runLimit : timeout;
        long deadline = limit == null ? 0 : System.nanoTime() + limit.toNanos();
        try (var _ = register(SelectionKey.OP_READ)) {
            while (buf.hasRemaining()) {
                int n = socket.read(buf);
                if (n < 0) {
                    throw new PerftestProtocolException(step + ": peer closed the connection after "
                            + buf.position() + " of " + length + " bytes"
                            + (running ? " (it ended or was killed before finishing its run)" : ""));
                }
                if (n > 0 && running) {
                    running = false;   // the peer has finished: the rest comes promptly
                    limit = timeout;
                    deadline = System.nanoTime() + timeout.toNanos();
                }
                if (n == 0) {
                    if (limit == null) {
                        // no deadline: EOF, a reset or a keepalive timeout (ETIMEDOUT) ends it
                        selector.select(1000);
                        selector.selectedKeys().clear();
                    } else if (running) {
                        await(step, "the peer did not finish its run within " + seconds(limit)
                                + " (peer stopped, or not in step: do both sides run the same test with the same -a, -b, -D and -q?)",
                                limit, deadline);
                    } else {
                        await(step, "read (" + buf.position() + " of " + length + " bytes received) timed out after "
                                + seconds(timeout) + " (peer gone, or not in step: do both sides run the same test with the same -a, -b, -D and -q?)",
                                timeout, deadline);
                    }
                }
            }
        } catch (PerftestProtocolException e) {
            throw e;
        } catch (IOException e) {
            throw new PerftestProtocolException(step + ": read from peer failed: " + e.getMessage()
                    + (running ? " (the peer's host stopped answering while it ran the test)" : ""), e);
        }
        return buf.array();
    }

    /** Waits for the selector until the deadline; past it, fails with {@code step: message}. */
    private void await(String step, String message, Duration timeout, long deadline) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new RdmaTimeoutException(timeout, step + ": " + message, null);
        }
        selector.select(Math.max(1, Math.min(1000, left / 1_000_000)));
        selector.selectedKeys().clear();
    }

    /** A timeout as messages print it: whole seconds, or milliseconds. */
    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    @Override
    public void close() throws IOException {
        try {
            selector.close();
        } finally {
            socket.close();
        }
    }
}
