// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.Reaches;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.NotYetBoundException;
import java.time.Duration;
import java.util.Set;

/**
 * A listening rsocket, the counterpart of {@link java.nio.channels.ServerSocketChannel}.
 * Accepted channels inherit the RDMA options set here ({@link RdmaSocketOptions}) and the
 * timeout. A blocking {@link #accept} waits at most {@link #timeout()} (default 30 s) for a
 * client, then throws {@link SocketTimeoutException}.
 */
public final class RdmaServerSocketChannel extends RsocketChannel<RdmaServerSocketChannel> {
    private volatile boolean bound;
    private int backlog;   // of the bind under way

    private RdmaServerSocketChannel(int fd) {
        super(fd);
    }

    /**
     * Opens an unbound listening rsocket. Accepted channels start with its RDMA options and its
     * {@link #timeout()}, which also bounds a blocking {@link #accept}.
     *
     * @return the channel, in blocking mode
     * @throws IOException if rsocket fails (no RDMA device with an IP address, say)
     */
    public static RdmaServerSocketChannel open() throws IOException {
        return new RdmaServerSocketChannel(Rsockets.openStream(Rsockets.AF_INET));
    }

    @Override
    public RdmaServerSocketChannel bind(SocketAddress local) throws IOException {
        return bind(local, 0);
    }

    /**
     * Binds to {@code local} and listens.
     *
     * @param local an address of an RDMA device's netdev; null: any
     * @param backlog pending connections; 0: 128
     * @return this channel
     * @throws IOException if the rsocket call fails (the message names the call and errno)
     */
    @Reaches({"rbind", "rlisten"})
    public synchronized RdmaServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must not be negative, got " + backlog);
        }
        this.backlog = backlog == 0 ? 128 : backlog;
        return super.bind(local);
    }

    @Override
    void checkBindable() {
        if (bound) {
            throw new AlreadyBoundException();
        }
    }

    @Override
    void bound() throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.listen(errno, fd, backlog) != 0) {
                throw Rsockets.failure("rlisten", "rsocket " + fd + ", backlog " + backlog, Errno.get(errno));
            }
        }
        bound = true;
    }

    /**
     * Accepts a connection. Blocking: waits up to {@link #timeout()}; non-blocking: null when
     * none is pending. The channel returned is in blocking mode.
     *
     * @return the connection, or null (non-blocking, none pending)
     * @throws SocketTimeoutException if none came within the timeout
     * @throws AsynchronousCloseException if another thread closed this channel meanwhile
     * @throws IOException if raccept fails
     */
    @Reaches({"raccept"})
    public RdmaSocketChannel accept() throws IOException {
        guard.begin();
        try (Arena a = Arena.ofConfined()) {
            if (!bound) {
                throw new NotYetBoundException();
            }
            MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
            MemorySegment len = a.allocate(ValueLayout.JAVA_INT);
            MemorySegment errno = Errno.allocate(a);
            while (true) {
                len.set(ValueLayout.JAVA_INT, 0, Rsockets.SOCKADDR_SIZE);
                int client = RsocketVerbs.accept(errno, fd, sa, len);
                if (client >= 0) {
                    try {
                        Rsockets.setNonBlocking(client, errno);
                    } catch (IOException e) {
                        RsocketVerbs.close(errno, client);
                        throw e;
                    }
                    return RdmaSocketChannel.accepted(client, Rsockets.decode(sa), timeoutMillis);
                }
                int e = Errno.get(errno);
                if (e == Errno.EINTR) {
                    continue;
                }
                if (e != Rsockets.EAGAIN) {
                    throw Rsockets.failure("raccept", "rsocket " + fd, e);
                }
                if (!isBlocking()) {
                    return null;
                }
                if (Rsockets.await(fd, Rsockets.POLLIN, timeoutMillis, guard) == 0) {
                    throw Rsockets.waitEnded(guard, "accept on rsocket " + fd, timeoutMillis);
                }
            }
        } finally {
            guard.end();
        }
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return SocketOptionCodec.STREAM_OPTIONS;
    }

    @Override
    public String toString() {
        return "RdmaServerSocketChannel[rsocket " + fd + (isOpen() ? "" : ", closed") + "]";
    }
}
