// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.Reaches;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
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
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.ScatteringByteChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A stream socket over librdmacm's RDMA sockets (rsockets): the bytes move by RDMA writes into
 * the peer's receive buffer, behind the shape of {@link java.nio.channels.SocketChannel}.
 *
 * <p>Blocking or non-blocking ({@link #configureBlocking}); blocking is the default. In both
 * modes the rsocket itself is non-blocking: a blocking read, write, connect or accept waits
 * in Java for {@code rpoll}'s readiness, in slices so that a close from another thread ends
 * the wait with {@link AsynchronousCloseException}, and on a virtual thread in a platform
 * thread's rpoll while the virtual thread parks (its carrier stays free). Every blocking wait
 * ends after {@link #timeout()} (default 30 s) with {@link SocketTimeoutException}.
 *
 * <p>One reader and one writer may work at once, as with {@code SocketChannel}. The peer
 * closing gives end-of-stream (-1) on read and a {@link java.net.SocketException} on write.
 * Heap and direct buffers both go to rsockets without a copy.
 */
public final class RdmaSocketChannel implements ByteChannel, ScatteringByteChannel, GatheringByteChannel,
        NetworkChannel {
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    final int fd;
    private final Guard guard = new Guard();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readErrno = Errno.allocate(arena);
    private final MemorySegment writeErrno = Errno.allocate(arena);
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Object stateLock = new Object();
    private volatile boolean blocking = true;
    private volatile long timeoutMillis = DEFAULT_TIMEOUT.toMillis();
    private volatile boolean connected;
    private boolean connectPending;
    private volatile boolean inputShut;
    private volatile boolean outputShut;
    private InetSocketAddress remote;

    private RdmaSocketChannel(int fd, boolean connected, InetSocketAddress remote) {
        this.fd = fd;
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
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(a);
            int fd = RsocketVerbs.socket(errno, Rsockets.AF_INET6, Rsockets.SOCK_STREAM, 0);
            if (fd < 0) {
                fd = RsocketVerbs.socket(errno, Rsockets.AF_INET, Rsockets.SOCK_STREAM, 0);
            }
            if (fd < 0) {
                throw Rsockets.failure("rsocket", "SOCK_STREAM; is there an RDMA device with an IP address?",
                        Errno.get(errno));
            }
            try {
                Rsockets.setNonBlocking(fd, errno);
            } catch (IOException e) {
                RsocketVerbs.close(errno, fd);
                throw e;
            }
            return new RdmaSocketChannel(fd, false, null);
        }
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

    /** {@return the rsocket's descriptor (an rsockets index, not a kernel file descriptor)} */
    public int rsocket() {
        return fd;
    }

    /**
     * Chooses blocking or non-blocking reads, writes and connects.
     *
     * @param block true for blocking
     * @return this channel
     * @throws ClosedChannelException if the channel is closed
     */
    public RdmaSocketChannel configureBlocking(boolean block) throws IOException {
        ensureOpen();
        this.blocking = block;
        return this;
    }

    /** {@return whether reads, writes and connects block} */
    public boolean isBlocking() {
        return blocking;
    }

    /**
     * Bounds every blocking wait of this channel (connect, read, write).
     *
     * @param timeout positive
     * @return this channel
     */
    public RdmaSocketChannel timeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.timeoutMillis = timeout.toMillis();
        return this;
    }

    /** {@return the bound on every blocking wait} */
    public Duration timeout() {
        return Duration.ofMillis(timeoutMillis);
    }

    @Override
    @Reaches({"rbind"})
    public RdmaSocketChannel bind(SocketAddress local) throws IOException {
        guard.begin();
        try (Arena a = Arena.ofConfined()) {
            synchronized (stateLock) {
                if (connected || connectPending) {
                    throw new AlreadyConnectedException();
                }
            }
            SocketAddress address = local == null ? new InetSocketAddress(0) : local;
            MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
            int len = Rsockets.encode(address, sa);
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.bind(errno, fd, sa, len) != 0) {
                throw Rsockets.failure("rbind", address, Errno.get(errno));
            }
            return this;
        } finally {
            guard.end();
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
        InetSocketAddress target = checkTarget(remote);
        guard.begin();
        try (Arena a = Arena.ofConfined()) {
            synchronized (stateLock) {
                if (connected) {
                    throw new AlreadyConnectedException();
                }
                if (connectPending) {
                    throw new ConnectionPendingException();
                }
                this.remote = target;
                MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
                int len = Rsockets.encode(target, sa);
                MemorySegment errno = Errno.allocate(a);
                if (RsocketVerbs.connect(errno, fd, sa, len) == 0) {
                    connected = true;
                    return true;
                }
                int e = Errno.get(errno);
                if (e != Rsockets.EINPROGRESS && e != Rsockets.EAGAIN) {
                    throw Rsockets.failure("rconnect", target, e);
                }
                connectPending = true;
            }
        } finally {
            guard.end();
        }
        if (!blocking) {
            return false;
        }
        try {
            return finishConnect();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private static InetSocketAddress checkTarget(SocketAddress remote) {
        Objects.requireNonNull(remote, "remote");
        if (!(remote instanceof InetSocketAddress inet)) {
            throw new java.nio.channels.UnsupportedAddressTypeException();
        }
        if (inet.isUnresolved()) {
            throw new java.nio.channels.UnresolvedAddressException();
        }
        if (inet.getPort() == 0) {
            throw new IllegalArgumentException("cannot connect to port 0 of " + inet.getAddress());
        }
        return inet;
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
            int revents = Rsockets.await(fd, Rsockets.POLLOUT, blocking ? timeoutMillis : 0, guard::isClosed);
            if (revents == 0) {
                if (!blocking) {
                    return false;
                }
                throw waitEnded("connect to " + remote);
            }
            synchronized (stateLock) {
                if ((revents & (Rsockets.POLLERR | Rsockets.POLLHUP)) != 0) {
                    int e = SocketOptionCodec.pendingError(fd);
                    connectPending = false;
                    throw Rsockets.failure("rconnect", remote, e != 0 ? e : 111);
                }
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
                    int len = Rsockets.encode(remote, sa);
                    MemorySegment errno = Errno.allocate(a);
                    if (RsocketVerbs.connect(errno, fd, sa, len) != 0) {
                        int e = Errno.get(errno);
                        if (e == Rsockets.EINPROGRESS || e == Rsockets.EAGAIN) {
                            return false;
                        }
                        connectPending = false;
                        throw Rsockets.failure("rconnect", remote, e);
                    }
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
    public boolean isOpen() {
        return !guard.isClosed();
    }

    @Override
    @Reaches({"rrecv"})
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        readLock.lock();
        try {
            guard.begin();
            try {
                return readOnce(dst, blocking);
            } finally {
                guard.end();
            }
        } finally {
            readLock.unlock();
        }
    }

    private int readOnce(ByteBuffer dst, boolean block) throws IOException {
        ensureConnected();
        if (inputShut) {
            return -1;
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        while (true) {
            MemorySegment seg = MemorySegment.ofBuffer(dst);
            long n = RsocketVerbs.recv(readErrno, fd, seg, seg.byteSize(), 0);
            if (n > 0) {
                dst.position(dst.position() + (int) n);
                return (int) n;
            }
            if (n == 0) {
                return -1;
            }
            int e = Errno.get(readErrno);
            if (e == Errno.EINTR) {
                continue;
            }
            if (e != Rsockets.EAGAIN) {
                throw Rsockets.failure("rrecv", "rsocket " + fd + " from " + remote, e);
            }
            if (!block) {
                return 0;
            }
            awaitReady(Rsockets.POLLIN, "read from " + remote);
        }
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        readLock.lock();
        try {
            guard.begin();
            try {
                long total = 0;
                for (int i = offset; i < offset + length; i++) {
                    ByteBuffer dst = dsts[i];
                    if (!dst.hasRemaining()) {
                        continue;
                    }
                    // Only the first transfer may wait; after it, take what is there.
                    int n = readOnce(dst, blocking && total == 0);
                    if (n < 0) {
                        return total == 0 ? -1 : total;
                    }
                    total += n;
                    if (dst.hasRemaining()) {
                        break;
                    }
                }
                return total;
            } finally {
                guard.end();
            }
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public long read(ByteBuffer[] dsts) throws IOException {
        return read(dsts, 0, dsts.length);
    }

    @Override
    @Reaches({"rsend"})
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        writeLock.lock();
        try {
            guard.begin();
            try {
                return writeAll(src);
            } finally {
                guard.end();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** Blocking: writes all of src; non-blocking: what fits now. */
    private int writeAll(ByteBuffer src) throws IOException {
        ensureConnected();
        if (outputShut) {
            throw new java.nio.channels.ClosedChannelException();
        }
        int written = 0;
        while (src.hasRemaining()) {
            MemorySegment seg = MemorySegment.ofBuffer(src);
            long n = RsocketVerbs.send(writeErrno, fd, seg, seg.byteSize(), 0);
            if (n > 0) {
                src.position(src.position() + (int) n);
                written += (int) n;
                continue;
            }
            int e = n < 0 ? Errno.get(writeErrno) : Rsockets.EAGAIN;
            if (e == Errno.EINTR) {
                continue;
            }
            if (e != Rsockets.EAGAIN) {
                throw Rsockets.failure("rsend", "rsocket " + fd + " to " + remote, e);
            }
            if (!blocking) {
                break;
            }
            awaitReady(Rsockets.POLLOUT, "write to " + remote);
        }
        return written;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        writeLock.lock();
        try {
            guard.begin();
            try {
                long total = 0;
                for (int i = offset; i < offset + length; i++) {
                    ByteBuffer src = srcs[i];
                    total += writeAll(src);
                    if (src.hasRemaining()) {
                        break;   // non-blocking and full: the rest must wait
                    }
                }
                return total;
            } finally {
                guard.end();
            }
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
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
            return Rsockets.await(fd, Rsockets.POLLIN, timeout.toMillis(), guard::isClosed) != 0;
        } finally {
            guard.end();
        }
    }

    private void awaitReady(short events, String what) throws IOException {
        if (Rsockets.await(fd, events, timeoutMillis, guard::isClosed) == 0) {
            throw waitEnded(what);
        }
    }

    private IOException waitEnded(String what) {
        if (guard.isClosed()) {
            return new AsynchronousCloseException();
        }
        if (Thread.currentThread().isInterrupted()) {
            return new InterruptedIOException(what + " on rsocket " + fd + " interrupted");
        }
        return new SocketTimeoutException(what + " on rsocket " + fd + " timed out after " + timeoutMillis + " ms");
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

    void unmap(IoMapping mapping) throws IOException {
        if (guard.isClosed()) {
            return;   // rclose unmapped it
        }
        guard.begin();
        try {
            IoMapping.unmap(fd, mapping.region());
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
        writeLock.lock();
        try {
            guard.begin();
            try {
                ensureConnected();
                long written = 0;
                while (written < src.byteSize()) {
                    long n = RsocketVerbs.iowrite(writeErrno, fd, src.asSlice(written), src.byteSize() - written,
                            offset + written, 0);
                    if (n > 0) {
                        written += n;
                        continue;
                    }
                    int e = n == 0 ? Rsockets.EAGAIN : Errno.get(writeErrno);
                    if (e == Errno.EINTR) {
                        continue;
                    }
                    if (e != Rsockets.EAGAIN) {
                        throw Rsockets.failure("riowrite", src.byteSize() + " bytes at peer offset " + (offset + written)
                                + ", rsocket " + fd, e);
                    }
                    if (!blocking) {
                        break;
                    }
                    awaitReady(Rsockets.POLLOUT, "iowrite to " + remote);
                }
                return written;
            } finally {
                guard.end();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Shuts down reading: later reads return -1.
     *
     * @return this channel
     * @throws IOException if rshutdown fails
     */
    public RdmaSocketChannel shutdownInput() throws IOException {
        shutdown(0, "SHUT_RD");
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
        shutdown(1, "SHUT_WR");
        outputShut = true;
        return this;
    }

    private void shutdown(int how, String name) throws IOException {
        guard.begin();
        try (Arena a = Arena.ofConfined()) {
            ensureConnected();
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.shutdown(errno, fd, how) != 0) {
                throw Rsockets.failure("rshutdown(" + name + ")", "rsocket " + fd, Errno.get(errno));
            }
        } finally {
            guard.end();
        }
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

    @Override
    @Reaches({"rgetsockname"})
    public InetSocketAddress getLocalAddress() throws IOException {
        return name(false);
    }

    private InetSocketAddress name(boolean peer) throws IOException {
        guard.begin();
        try (Arena a = Arena.ofConfined()) {
            if (peer && !connected) {
                return null;
            }
            MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
            MemorySegment len = a.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
            len.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, Rsockets.SOCKADDR_SIZE);
            MemorySegment errno = Errno.allocate(a);
            int r = peer ? RsocketVerbs.getpeername(errno, fd, sa, len) : RsocketVerbs.getsockname(errno, fd, sa, len);
            if (r != 0) {
                throw Rsockets.failure(peer ? "rgetpeername" : "rgetsockname", "rsocket " + fd, Errno.get(errno));
            }
            return Rsockets.decode(sa);
        } finally {
            guard.end();
        }
    }

    @Override
    @Reaches({"rsetsockopt"})
    public <T> RdmaSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        guard.begin();
        try {
            SocketOptionCodec.set(fd, name, value);
            return this;
        } finally {
            guard.end();
        }
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        guard.begin();
        try {
            return SocketOptionCodec.get(fd, name);
        } finally {
            guard.end();
        }
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return SocketOptionCodec.STREAM_OPTIONS;
    }

    /** {@return an InputStream over this channel (blocking mode only); closing it closes the channel} */
    public InputStream inputStream() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                requireBlocking();
                return len == 0 ? 0 : RdmaSocketChannel.this.read(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void close() throws IOException {
                RdmaSocketChannel.this.close();
            }
        };
    }

    /** {@return an OutputStream over this channel (blocking mode only); closing it closes the channel} */
    public OutputStream outputStream() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                requireBlocking();
                RdmaSocketChannel.this.write(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void close() throws IOException {
                RdmaSocketChannel.this.close();
            }
        };
    }

    private void requireBlocking() {
        if (!blocking) {
            throw new IllegalBlockingModeException();
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (guard.isClosed()) {
            throw new ClosedChannelException();
        }
    }

    private void ensureConnected() {
        if (!connected) {
            throw new NotYetConnectedException();
        }
    }

    /**
     * Closes the rsocket. A read, write or wait in another thread ends with
     * {@link AsynchronousCloseException} within one rpoll slice; rclose runs after they left.
     */
    @Override
    @Reaches({"rclose"})
    public void close() throws IOException {
        if (!guard.close()) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.close(errno, fd) != 0) {
                throw Rsockets.failure("rclose", "rsocket " + fd, Errno.get(errno));
            }
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "RdmaSocketChannel[rsocket " + fd + (connected ? ", to " + remote : "") + (isOpen() ? "" : ", closed")
                + "]";
    }
}
