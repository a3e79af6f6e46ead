// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.Reaches;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * A stream socket over librdmacm's RDMA sockets (rsockets): the bytes move by RDMA writes into
 * the peer's receive buffer, behind the shape of {@link java.nio.channels.SocketChannel}.
 *
 * <p>Blocking or non-blocking ({@link #configureBlocking}); blocking is the default. In both
 * modes the rsocket itself is non-blocking: a blocking read, write, connect or accept waits
 * in Java for {@code rpoll}'s readiness (checks with timeout 0 and short pauses between them,
 * see {@code Rsockets.await}), so a close from another thread ends the wait with
 * {@link AsynchronousCloseException}, and a virtual thread parks while it waits (its carrier
 * stays free). Every blocking wait ends after {@link #timeout()} (default 30 s) with
 * {@link SocketTimeoutException}.
 *
 * <p>One reader and one writer may work at once, as with {@code SocketChannel}. The peer
 * closing gives end-of-stream (-1) on read and a {@link java.net.SocketException} on write.
 * Heap and direct buffers both go to rsockets without a copy.
 */
public final class RdmaSocketChannel extends RsocketChannel<RdmaSocketChannel>
        implements VectoredChannel {
    private final Arena arena = Arena.ofShared();
    final ChannelIo io = new ChannelIo(this, arena);
    private final Object stateLock = new Object();
    private volatile boolean connected;
    private boolean connectPending;
    volatile boolean inputShut;
    volatile boolean outputShut;
    private volatile InetSocketAddress remote;

    private RdmaSocketChannel(int fd, boolean connected, InetSocketAddress remote) {
        super(fd);
        this.connected = connected;
        this.remote = remote;
    }

    /**
     * Opens an unconnected stream rsocket (IPv4 and IPv6 peers alike).
     *
     * @return the channel, in blocking mode
     * @throws IOException if rsocket fails (no RDMA device with an IP address, say)
     */
    @Reaches({"rsocket", "rfcntl"})
    public static RdmaSocketChannel open() throws IOException {
        return new RdmaSocketChannel(Rsockets.openStream(Rsockets.AF_INET6), false, null);
    }

    /**
     * Opens a stream rsocket and connects it to {@code remote} (blocking, within the default timeout).
     *
     * @param remote the server
     * @return the connected channel
     * @throws IOException if the connection fails or times out; nothing is left open then
     */
    public static RdmaSocketChannel open(SocketAddress remote) throws IOException {
        RdmaSocketChannel channel = open();
        try {
            channel.connect(remote);
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Wraps an rsocket raccept returned (already non-blocking). */
    static RdmaSocketChannel accepted(int fd, InetSocketAddress remote, long timeoutMillis) {
        RdmaSocketChannel channel = new RdmaSocketChannel(fd, true, remote);
        channel.timeoutMillis = timeoutMillis;
        return channel;
    }

    @Override
    void checkBindable() {
        synchronized (stateLock) {
            if (connected || connectPending) {
                throw new AlreadyConnectedException();
            }
        }
    }

    /**
     * Connects to {@code remote}. Blocking: returns true once connected, or throws within
     * {@link #timeout()} (and closes the channel, so nothing is left half-open). Non-blocking:
     * true if connected at once, else false and {@link #finishConnect} completes it.
     *
     * @param remote the server
     * @return whether the connection is established
     * @throws IOException if the connection fails or (blocking) times out
     */
    @Reaches({"rconnect"})
    public boolean connect(SocketAddress remote) throws IOException {
        InetSocketAddress target = Rsockets.checkTarget(remote);
        guard.begin();
        try {
            synchronized (stateLock) {
                if (connected) {
                    throw new AlreadyConnectedException();
                }
                if (connectPending) {
                    throw new ConnectionPendingException();
                }
                this.remote = target;
                int e = Rsockets.connect(fd, target);
                if (e == 0) {
                    connected = true;
                    return true;
                }
                if (e != Rsockets.EINPROGRESS && e != Rsockets.EAGAIN) {
                    throw Rsockets.failure("rconnect", target, e);
                }
                connectPending = true;
            }
        } finally {
            guard.end();
        }
        if (!isBlocking()) {
            return false;
        }
        try {
            return finishConnect();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Completes a connect begun in non-blocking mode (blocking mode: waits up to {@link #timeout()}).
     *
     * @return whether the connection is established
     * @throws IOException if the connection failed or (blocking) timed out
     */
    @Reaches({"rpoll", "rgetsockopt"})
    public boolean finishConnect() throws IOException {
        guard.begin();
        try {
            synchronized (stateLock) {
                if (connected) {
                    return true;
                }
                if (!connectPending) {
                    throw new NoConnectionPendingException();
                }
            }
            int revents = Rsockets.await(fd, Rsockets.POLLOUT, isBlocking() ? timeoutMillis : 0, guard);
            if (revents == 0) {
                if (!isBlocking()) {
                    return false;
                }
                throw Rsockets.waitEnded(guard, "connect to " + remote + " on rsocket " + fd, timeoutMillis);
            }
            synchronized (stateLock) {
                if ((revents & (Rsockets.POLLERR | Rsockets.POLLHUP)) != 0) {
                    int e = SocketOptionCodec.pendingError(fd);
                    connectPending = false;
                    throw Rsockets.failure("rconnect", remote, e != 0 ? e : 111);
                }
                int e = Rsockets.connect(fd, remote);
                if (e == Rsockets.EINPROGRESS || e == Rsockets.EAGAIN) {
                    return false;
                }
                if (e != 0) {
                    connectPending = false;
                    throw Rsockets.failure("rconnect", remote, e);
                }
                connectPending = false;
                connected = true;
                return true;
            }
        } finally {
            guard.end();
        }
    }

    /** {@return whether connected} */
    public boolean isConnected() {
        return connected;
    }

    /** {@return whether a non-blocking connect is in progress} */
    public boolean isConnectionPending() {
        synchronized (stateLock) {
            return connectPending;
        }
    }

    @Override
    @Reaches({"rrecv"})
    public int read(ByteBuffer dst) throws IOException {
        return io.read(dst);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Direct buffers go through {@code rreadv}, heap buffers through {@code rrecv}; only
     * the first transfer waits (blocking mode), the rest take what has arrived.
     */
    @Override
    @Reaches({"rreadv", "rrecv"})
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return io.read(dsts, offset, length);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Blocking mode writes all of {@code src} (waiting for room up to {@link #timeout()});
     * non-blocking mode writes what fits now.
     */
    @Override
    @Reaches({"rsend"})
    public int write(ByteBuffer src) throws IOException {
        return io.write(src);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Runs of direct buffers go through one {@code rwritev} each (up to
     * {@value ChannelIo#MAX_IOV} buffers), heap buffers through {@code rsend}.
     */
    @Override
    @Reaches({"rwritev", "rsend"})
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return io.write(srcs, offset, length);
    }

    /**
     * Waits until the rsocket is readable (or at end of stream or failed).
     *
     * @param timeout the longest wait
     * @return false if the time passed first
     * @throws IOException if rpoll fails or the channel is closed
     */
    public boolean awaitReadable(Duration timeout) throws IOException {
        guard.begin();
        try {
            return Rsockets.await(fd, Rsockets.POLLIN, timeout.toMillis(), guard) != 0;
        } finally {
            guard.end();
        }
    }

    /** Waits (up to the timeout) for rpoll to report {@code events}; throws when the wait ends without. */
    void awaitReady(short events, String what) throws IOException {
        if (Rsockets.await(fd, events, timeoutMillis, guard) == 0) {
            throw Rsockets.waitEnded(guard, what + (events == Rsockets.POLLIN ? " from " : " to ") + remote + " on rsocket "
                    + fd, timeoutMillis);
        }
    }

    /** {@return the peer as messages name it} */
    Object remoteForMessages() {
        return remote;
    }

    /**
     * Maps {@code region} for the peer's {@link #iowrite} ({@code riomap}, write access).
     *
     * @param region native memory that stays allocated until the mapping is closed
     * @param offset the offset the peer will address it by, or -1 to let rsockets choose
     * @return the mapping; its {@link IoMapping#offset()} is what the peer needs to know
     * @throws IOException if riomap fails (the message says so when IOMAP_SIZE is missing)
     */
    @Reaches({"riomap"})
    public IoMapping iomap(MemorySegment region, long offset) throws IOException {
        Objects.requireNonNull(region, "region");
        guard.begin();
        try {
            ensureConnected();
            return IoMapping.map(this, fd, region, offset);
        } finally {
            guard.end();
        }
    }

    /**
     * Writes {@code src} directly into the peer's mapped region at {@code offset}
     * ({@code riowrite}); blocking mode writes all of it, non-blocking what fits now.
     *
     * @param src native memory to write
     * @param offset where in the peer's mappings ({@link IoMapping#offset()} plus a position)
     * @return the bytes written
     * @throws IOException if riowrite fails, e.g. no peer mapping covers the range
     */
    @Reaches({"riowrite"})
    public long iowrite(MemorySegment src, long offset) throws IOException {
        Objects.requireNonNull(src, "src");
        if (!src.isNative()) {
            throw new IllegalArgumentException("riowrite needs native memory: " + src);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, got " + offset);
        }
        return io.iowrite(src, offset);
    }

    /**
     * Shuts down reading: later reads return -1.
     *
     * @return this channel
     * @throws IOException if rshutdown fails
     */
    public RdmaSocketChannel shutdownInput() throws IOException {
        io.shutdown(0, "SHUT_RD");
        inputShut = true;
        return this;
    }

    /**
     * Shuts down writing: the peer reads end of stream.
     *
     * @return this channel
     * @throws IOException if rshutdown fails
     */
    @Reaches({"rshutdown"})
    public RdmaSocketChannel shutdownOutput() throws IOException {
        io.shutdown(1, "SHUT_WR");
        outputShut = true;
        return this;
    }

    /**
     * The peer's address.
     *
     * @return the address, null when not connected
     * @throws IOException if rgetpeername fails
     */
    @Reaches({"rgetpeername"})
    public InetSocketAddress getRemoteAddress() throws IOException {
        return name(true);
    }

    private InetSocketAddress name(boolean peer) throws IOException {
        return guarded(() -> peer && !connected ? null : Rsockets.name(fd, peer));
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return SocketOptionCodec.STREAM_OPTIONS;
    }

    /**
     * {@return an InputStream over this channel (blocking mode only, {@code rread}); closing it
     * closes the channel}
     */
    @Reaches({"rread"})
    public InputStream inputStream() {
        return ChannelStreams.in(this);
    }

    /**
     * {@return an OutputStream over this channel (blocking mode only, {@code rwrite}); closing
     * it closes the channel}
     */
    @Reaches({"rwrite"})
    public OutputStream outputStream() {
        return ChannelStreams.out(this);
    }

    void ensureConnected() {
        if (!connected) {
            throw new NotYetConnectedException();
        }
    }

    @Override
    void closed() {
        arena.close();
    }

    @Override
    public String toString() {
        return "RdmaSocketChannel[rsocket " + fd + (connected ? ", to " + remote : "") + (isOpen() ? "" : ", closed")
                + "]";
    }
}
