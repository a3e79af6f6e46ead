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
import java.nio.ByteBuffer;
import java.nio.channels.NotYetConnectedException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A datagram rsocket ({@code SOCK_DGRAM}: rsockets over UD queue pairs), in the shape of
 * {@link java.nio.channels.DatagramChannel}: {@link #send} and {@link #receive} with addresses,
 * and once {@link #connect connected}, {@link #read} and {@link #write}.
 *
 * <p><b>Not on RoCE.</b> rdma-core's rsockets (44, and unchanged upstream to this day) build the
 * address handle of each destination from the port's LID without a GRH ({@code rsocket.c},
 * {@code ds_add_qp_dest}); a RoCE port, Soft-RoCE's included, refuses such an address handle
 * ({@code ibv_create_ah}: EINVAL), and librdmacm reports the errno of its clean-up, ENOENT. So on
 * RoCE the first {@link #send} or {@link #connect} fails, and nothing ever arrives: measured on
 * rxe with rdma-core 44 (research/notes/2026-11-28-rsockets.md). jrdma's exception says so.
 * Datagram rsockets need an InfiniBand port.
 *
 * <p>Each datagram is copied through a native buffer of the channel (rsockets copies it into a
 * message slot anyway), so heap and direct buffers both work and a call allocates nothing. A
 * datagram holds at most {@value #MAX_DATAGRAM} bytes.
 */
public final class RdmaDatagramChannel extends RsocketChannel<RdmaDatagramChannel>
        implements VectoredChannel {
    /**
     * The longest datagram: rsockets copies each into a 2048-byte message slot after a header of
     * up to 24 bytes, without checking the length ({@code rsocket.c}, {@code dsend}).
     */
    public static final int MAX_DATAGRAM = 2048 - 24;

    /** Why a datagram rsocket cannot send on RoCE, for the exception. */
    static final String NOT_ON_ROCE = "datagram rsockets need an InfiniBand port: rdma-core's rsockets build each"
            + " destination's address handle from the port's LID without a GRH (rsocket.c ds_add_qp_dest), which a"
            + " RoCE port such as Soft-RoCE's refuses (ibv_create_ah: EINVAL; the ENOENT is librdmacm's clean-up)";
    private static final long MSGHDR_SIZE = 56;   // struct msghdr on LP64

    private final Arena arena = Arena.ofShared();
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final MemorySegment sendBuffer = arena.allocate(MAX_DATAGRAM, 8);
    private final MemorySegment receiveBuffer = arena.allocate(MAX_DATAGRAM, 8);
    private final MemorySegment sendAddress = arena.allocate(Rsockets.SOCKADDR_SIZE, 8);
    private final MemorySegment receiveAddress = arena.allocate(Rsockets.SOCKADDR_SIZE, 8);
    private final MemorySegment receiveAddressLength = arena.allocate(ValueLayout.JAVA_INT);
    private final MemorySegment message = arena.allocate(MSGHDR_SIZE, 8);
    private final MemorySegment iov = arena.allocate(16, 8);
    private final MemorySegment sendErrno = Errno.allocate(arena);
    private final MemorySegment receiveErrno = Errno.allocate(arena);
    private volatile InetSocketAddress remote;
    /** Whether rsockets has set up the datagram endpoint (ds_init_ep: rbind, rconnect, rsendto do). */
    private volatile boolean initialized;

    private RdmaDatagramChannel(int fd) {
        super(fd);
        iov.set(ValueLayout.ADDRESS, 0, receiveBuffer);
        iov.set(ValueLayout.JAVA_LONG, 8, MAX_DATAGRAM);
        message.set(ValueLayout.ADDRESS, 16, iov);
        message.set(ValueLayout.JAVA_LONG, 24, 1);
    }

    /**
     * Opens an unbound datagram rsocket (IPv4).
     *
     * @return the channel, in blocking mode
     * @throws IOException if rsocket fails
     */
    @Reaches({"rsocket", "rfcntl"})
    public static RdmaDatagramChannel open() throws IOException {
        return new RdmaDatagramChannel(Rsockets.open(Rsockets.AF_INET, Rsockets.SOCK_DGRAM));
    }

    /**
     * Sets the only peer {@link #read} and {@link #write} talk to ({@code rconnect}: rsockets
     * resolves the peer's address handle here, so on RoCE this fails, see the class comment).
     *
     * @param remote the peer
     * @return this channel
     * @throws IOException if rconnect fails
     */
    @Reaches({"rconnect"})
    public RdmaDatagramChannel connect(SocketAddress remote) throws IOException {
        InetSocketAddress target = Rsockets.checkTarget(remote);
        guard.begin();
        writeLock.lock();
        try {
            int len = Rsockets.encode(target, sendAddress);
            initialized = true;   // rconnect sets the endpoint up before it resolves the peer
            if (RsocketVerbs.connect(sendErrno, fd, sendAddress, len) != 0) {
                throw failure("rconnect", target, Errno.get(sendErrno));
            }
            this.remote = target;
            return this;
        } finally {
            writeLock.unlock();
            guard.end();
        }
    }

    /** {@return whether {@link #connect} set a peer} */
    public boolean isConnected() {
        return remote != null;
    }

    /** {@return the peer {@link #connect} set, or null} */
    public InetSocketAddress getRemoteAddress() {
        return remote;
    }

    /**
     * Sends the remaining bytes of {@code src} as one datagram to {@code target}
     * ({@code rsendto}). Blocking mode waits for room up to {@link #timeout()}; non-blocking
     * returns 0 when there is none.
     *
     * @param src at most {@value #MAX_DATAGRAM} bytes
     * @param target the receiver
     * @return the bytes sent: all of them, or 0
     * @throws IOException if rsendto fails (on RoCE it always does, see the class comment)
     */
    @Reaches({"rsendto"})
    public int send(ByteBuffer src, SocketAddress target) throws IOException {
        return send(src, Rsockets.checkTarget(target), true);
    }

    /**
     * Receives one datagram into {@code dst} ({@code rrecvfrom}); what does not fit is dropped,
     * as with {@code DatagramChannel}. Blocking mode waits up to {@link #timeout()}.
     *
     * @param dst where the datagram goes
     * @return its sender, or null (non-blocking, none there)
     * @throws IOException if rrecvfrom fails or (blocking) none came in time
     */
    @Reaches({"rrecvfrom"})
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("receive into a read-only buffer");
        }
        guard.begin();
        readLock.lock();
        try {
            long n = receiveOne(true);
            if (n < 0) {
                return null;
            }
            scatter(dst, n);
            return Rsockets.decode(receiveAddress);
        } finally {
            readLock.unlock();
            guard.end();
        }
    }

    @Override
    @Reaches({"rsend"})
    public int write(ByteBuffer src) throws IOException {
        return send(src, connected(), false);
    }

    /**
     * Refused: a gathering write would be {@code rsendmsg}, which rdma-core (44, and upstream to
     * this day) runs through its stream code on a datagram rsocket ({@code rsendv} has no
     * datagram branch): the process dies with SIGSEGV (measured on rxe). jrdma never makes the
     * call; gather into one buffer and {@link #write(ByteBuffer)} it.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    @Reaches({"rsendmsg"})
    public long write(ByteBuffer[] srcs, int offset, int length) {
        throw new UnsupportedOperationException("rsendmsg on a datagram rsocket runs rdma-core's stream code and"
                + " crashes the process (SIGSEGV; rsocket.c rsendv has no datagram branch): gather into one buffer"
                + " and write(ByteBuffer) it");
    }

    /**
     * Receives one datagram from the connected peer into {@code dst} ({@code rrecvmsg}); what does
     * not fit is dropped.
     *
     * @return the bytes read, or 0 (non-blocking, none there)
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        return (int) read(dst, null, 0, 0);
    }

    /**
     * Receives one datagram from the connected peer ({@code rrecvmsg}) and scatters it over
     * {@code dsts}; what does not fit is dropped.
     *
     * @return the bytes read, or 0 (non-blocking, none there)
     */
    @Override
    @Reaches({"rrecvmsg"})
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        return read(null, dsts, offset, length);
    }

    /** rrecvmsg of one datagram from the connected peer into {@code dst}, or scattered over {@code dsts}. */
    private long read(ByteBuffer dst, ByteBuffer[] dsts, int offset, int length) throws IOException {
        connected();
        guard.begin();
        readLock.lock();
        try {
            long n = receiveOne(false);
            if (n < 0) {
                return 0;
            }
            if (dst != null) {
                return scatter(dst, n);
            }
            long copied = 0;
            for (int i = offset; i < offset + length && copied < n; i++) {
                copied += scatter(dsts[i], n - copied, copied);
            }
            return copied;
        } finally {
            readLock.unlock();
            guard.end();
        }
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return SocketOptionCodec.STREAM_OPTIONS;
    }

    /**
     * rclose of a datagram rsocket that rsockets never set up waits forever: ds_shutdown waits
     * until all of its sends are done, counted from a send queue that was never filled
     * (rsocket.c, ds_all_sends_done; measured on rxe). An rbind to any address sets it up first.
     */
    @Override
    void closing() {
        if (!initialized) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
                int len = Rsockets.encode(new InetSocketAddress(0), sa);
                RsocketVerbs.bind(Errno.allocate(a), fd, sa, len);   // only for ds_init_ep: the result does not matter
            }
        }
    }

    @Override
    void bound() {
        initialized = true;
    }

    @Override
    void closed() {
        arena.close();
    }

    private InetSocketAddress connected() {
        InetSocketAddress peer = remote;
        if (peer == null) {
            throw new NotYetConnectedException();
        }
        return peer;
    }

    /** rsendto ({@code addressed}) or rsend (connected) of {@code src}; 0 when full and non-blocking. */
    private int send(ByteBuffer src, InetSocketAddress to, boolean addressed) throws IOException {
        int size = src.remaining();
        if (size > MAX_DATAGRAM) {
            throw new IllegalArgumentException("a datagram rsocket sends at most " + MAX_DATAGRAM + " bytes, got "
                    + size);
        }
        guard.begin();
        writeLock.lock();
        try {
            int addressLength = addressed ? Rsockets.encode(to, sendAddress) : 0;
            MemorySegment.copy(MemorySegment.ofBuffer(src), 0, sendBuffer, 0, size);
            initialized = true;   // rsendto and rsend set the endpoint up first
            while (true) {
                long n = addressed
                        ? RsocketVerbs.sendto(sendErrno, fd, sendBuffer, size, 0, sendAddress, addressLength)
                        : RsocketVerbs.send(sendErrno, fd, sendBuffer, size, 0);
                if (n >= 0) {
                    src.position(src.position() + size);
                    return size;
                }
                int e = Errno.get(sendErrno);
                if (e == Errno.EINTR) {
                    continue;
                }
                if (e != Rsockets.EAGAIN) {
                    throw failure(addressed ? "rsendto" : "rsend", to, e);
                }
                if (!isBlocking()) {
                    return 0;
                }
                if (Rsockets.await(fd, Rsockets.POLLOUT, timeoutMillis, guard) == 0) {
                    throw Rsockets.waitEnded(guard, "datagram send to " + to + " on rsocket " + fd, timeoutMillis);
                }
            }
        } finally {
            writeLock.unlock();
            guard.end();
        }
    }

    /**
     * One datagram into the receive buffer, by rrecvfrom ({@code from}: its sender into
     * receiveAddress) or rrecvmsg; its length, or -1 when none is there and the channel is
     * non-blocking. The caller holds the guard and the read lock.
     */
    private long receiveOne(boolean from) throws IOException {
        while (true) {
            long n;
            if (from) {
                receiveAddressLength.set(ValueLayout.JAVA_INT, 0, Rsockets.SOCKADDR_SIZE);
                n = RsocketVerbs.recvfrom(receiveErrno, fd, receiveBuffer, MAX_DATAGRAM, 0, receiveAddress,
                        receiveAddressLength);
            } else {
                n = RsocketVerbs.recvmsg(receiveErrno, fd, message, 0);
            }
            if (n >= 0) {
                return n;
            }
            int e = Errno.get(receiveErrno);
            if (e == Errno.EINTR) {
                continue;
            }
            if (e != Rsockets.EAGAIN) {
                throw failure(from ? "rrecvfrom" : "rrecvmsg", "rsocket " + fd, e);
            }
            if (!isBlocking()) {
                return -1;
            }
            if (Rsockets.await(fd, Rsockets.POLLIN, timeoutMillis, guard) == 0) {
                throw Rsockets.waitEnded(guard, "datagram receive on rsocket " + fd, timeoutMillis);
            }
        }
    }

    private long scatter(ByteBuffer dst, long size) {
        return scatter(dst, size, 0);
    }

    /** Copies up to {@code size} received bytes from {@code from} on into {@code dst}; returns how many fitted. */
    private int scatter(ByteBuffer dst, long size, long from) {
        int step = (int) Math.min(dst.remaining(), size);
        MemorySegment.copy(receiveBuffer, from, MemorySegment.ofBuffer(dst), 0, step);
        dst.position(dst.position() + step);
        return step;
    }

    private static IOException failure(String call, Object about, int errno) {
        IOException e = Rsockets.failure(call, about, errno);
        return errno == 2 ? new java.net.SocketException(e.getMessage() + ": " + NOT_ON_ROCE) : e;
    }

    @Override
    public String toString() {
        return "RdmaDatagramChannel[rsocket " + fd + (remote != null ? ", to " + remote : "")
                + (isOpen() ? "" : ", closed") + "]";
    }
}
