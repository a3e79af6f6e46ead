// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The data path of an {@link RdmaSocketChannel}: its reads and writes, blocking or not.
 *
 * <p>The rsocket itself is always in O_NONBLOCK mode, so each rsocket call returns at once;
 * "blocking" is this class waiting for rpoll's readiness between calls ({@link
 * RdmaSocketChannel#awaitReady}), bounded by the channel's timeout. One reader and one writer
 * may work at once: each side has its lock, its errno capture and its iovec array.
 *
 * <p>Which rsocket call moves the bytes: {@code rrecv}/{@code rsend} for one buffer,
 * {@code rwritev} for a gathering write of direct buffers, {@code rreadv} for a scattering
 * read into direct buffers, {@code rread}/{@code rwrite} for the streams' arrays. rsockets'
 * {@code rreadv} (rdma-core 44, {@code rrecvv}) fills only the first iovec, so a scattering
 * read passes one buffer per call.
 */
final class ChannelIo {
    /** The longest gathering write passed to rwritev at once; longer arrays go in several calls. */
    static final int MAX_IOV = 16;
    private static final long IOV_SIZE = 16;   // struct iovec: base, length

    private final RdmaSocketChannel channel;
    final ReentrantLock readLock = new ReentrantLock();
    final ReentrantLock writeLock = new ReentrantLock();
    private final MemorySegment readErrno;
    private final MemorySegment writeErrno;
    private final MemorySegment readIov;
    private final MemorySegment writeIov;

    ChannelIo(RdmaSocketChannel channel, Arena arena) {
        this.channel = channel;
        this.readErrno = Errno.allocate(arena);
        this.writeErrno = Errno.allocate(arena);
        this.readIov = arena.allocate(IOV_SIZE, 8);
        this.writeIov = arena.allocate(IOV_SIZE * MAX_IOV, 8);
    }

    /** Takes {@code side}'s lock, then the guard (ClosedChannelException when closed). */
    private void begin(ReentrantLock side) throws ClosedChannelException {
        side.lock();
        try {
            channel.guard.begin();
        } catch (ClosedChannelException e) {
            side.unlock();
            throw e;
        }
    }

    private void end(ReentrantLock side) {
        channel.guard.end();
        side.unlock();
    }

    int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        begin(readLock);
        try {
            return readOnce(dst, channel.isBlocking(), false);
        } finally {
            end(readLock);
        }
    }

    long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        begin(readLock);
        try {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                ByteBuffer dst = dsts[i];
                if (!dst.hasRemaining()) {
                    continue;
                }
                // Only the first transfer may wait; after it, take what is there.
                int n = readOnce(dst, channel.isBlocking() && total == 0, dst.isDirect());
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
            end(readLock);
        }
    }

    /**
     * One receive into {@code dst}: {@code rreadv} with one iovec ({@code vectored}, direct
     * buffers only) or {@code rrecv}; waits first when {@code block}. The bytes read, -1 at end of
     * stream, 0 when non-blocking and nothing is there.
     */
    private int readOnce(ByteBuffer dst, boolean block, boolean vectored) throws IOException {
        if (!checkReadable(dst)) {
            return channel.inputShut ? -1 : 0;
        }
        while (true) {
            MemorySegment seg = MemorySegment.ofBuffer(dst);
            long n;
            if (vectored) {
                readIov.set(ValueLayout.ADDRESS, 0, seg);
                readIov.set(ValueLayout.JAVA_LONG, 8, seg.byteSize());
                n = RsocketVerbs.readv(readErrno, channel.fd, readIov, 1);
            } else {
                n = RsocketVerbs.recv(readErrno, channel.fd, seg, seg.byteSize(), 0);
            }
            if (n > 0) {
                dst.position(dst.position() + (int) n);
                return (int) n;
            }
            if (n == 0) {
                return -1;
            }
            if (!readAgain(vectored ? "rreadv" : "rrecv", block)) {
                return 0;
            }
        }
    }

    /** {@code rread} into an array (the InputStream); blocking. */
    int readArray(byte[] b, int off, int len) throws IOException {
        begin(readLock);
        try {
            channel.ensureConnected();
            if (channel.inputShut) {
                return -1;
            }
            while (true) {
                long n = RsocketVerbs.read(readErrno, channel.fd, MemorySegment.ofArray(b).asSlice(off, len), len);
                if (n > 0) {
                    return (int) n;
                }
                if (n == 0) {
                    return -1;
                }
                readAgain("rread", true);
            }
        } finally {
            end(readLock);
        }
    }

    /** False when there is nothing to read into, or input is shut down. */
    private boolean checkReadable(ByteBuffer dst) {
        channel.ensureConnected();
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        return !channel.inputShut && dst.hasRemaining();
    }

    /**
     * After a receive returned -1: true to call again (EINTR, or readable after a wait), false
     * when non-blocking and nothing is there; throws on a real error or when the wait ends.
     */
    private boolean readAgain(String call, boolean block) throws IOException {
        int e = Errno.get(readErrno);
        if (e == Errno.EINTR) {
            return true;
        }
        if (e != Rsockets.EAGAIN) {
            throw Rsockets.failure(call, "rsocket " + channel.fd + " from " + channel.remoteForMessages(), e);
        }
        if (!block) {
            return false;
        }
        channel.awaitReady(Rsockets.POLLIN, "read");
        return true;
    }

    int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src, "src");
        begin(writeLock);
        try {
            checkWritable();
            int written = 0;
            while (src.hasRemaining()) {
                long n = sendOnce(src);
                if (n < 0) {
                    break;   // non-blocking and full
                }
                written += (int) n;
            }
            return written;
        } finally {
            end(writeLock);
        }
    }

    long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        begin(writeLock);
        try {
            checkWritable();
            long total = 0;
            int i = offset;
            int end = offset + length;
            while (i < end) {
                if (!srcs[i].hasRemaining()) {
                    i++;
                    continue;
                }
                long n = srcs[i].isDirect() ? writev(srcs, i, end) : sendOnce(srcs[i]);
                if (n < 0) {
                    break;   // non-blocking and full: the rest must wait
                }
                total += n;
            }
            return total;
        } finally {
            end(writeLock);
        }
    }

    /** One rwritev of the direct buffers from {@code first} on; -1 when non-blocking and full. */
    private long writev(ByteBuffer[] srcs, int first, int end) throws IOException {
        while (true) {
            int count = 0;
            for (int i = first; i < end && count < MAX_IOV && srcs[i].isDirect(); i++) {
                if (srcs[i].hasRemaining()) {
                    MemorySegment seg = MemorySegment.ofBuffer(srcs[i]);
                    writeIov.set(ValueLayout.ADDRESS, count * IOV_SIZE, seg);
                    writeIov.set(ValueLayout.JAVA_LONG, count * IOV_SIZE + 8, seg.byteSize());
                    count++;
                }
            }
            long n = RsocketVerbs.writev(writeErrno, channel.fd, writeIov, count);
            if (n > 0) {
                long left = n;
                for (int i = first; i < end && left > 0; i++) {
                    int step = (int) Math.min(left, srcs[i].remaining());
                    srcs[i].position(srcs[i].position() + step);
                    left -= step;
                }
                return n;
            }
            if (!writeAgain("rwritev", n)) {
                return -1;
            }
        }
    }

    /** One rsend of {@code src} (heap or direct); -1 when non-blocking and full. */
    private long sendOnce(ByteBuffer src) throws IOException {
        while (true) {
            MemorySegment seg = MemorySegment.ofBuffer(src);
            long n = RsocketVerbs.send(writeErrno, channel.fd, seg, seg.byteSize(), 0);
            if (n > 0) {
                src.position(src.position() + (int) n);
                return n;
            }
            if (!writeAgain("rsend", n)) {
                return -1;
            }
        }
    }

    /** {@code rwrite} of an array (the OutputStream); blocking, writes all of it. */
    void writeArray(byte[] b, int off, int len) throws IOException {
        begin(writeLock);
        try {
            checkWritable();
            MemorySegment all = MemorySegment.ofArray(b);
            int done = 0;
            while (done < len) {
                long n = RsocketVerbs.write(writeErrno, channel.fd, all.asSlice(off + done, len - done), len - done);
                if (n > 0) {
                    done += (int) n;
                } else {
                    writeAgain("rwrite", n);   // blocking: true or throws
                }
            }
        } finally {
            end(writeLock);
        }
    }

    /**
     * {@code riowrite} of {@code src} into the peer's mappings at {@code offset}; blocking mode
     * writes all of it, non-blocking what fits now.
     */
    long iowrite(MemorySegment src, long offset) throws IOException {
        begin(writeLock);
        try {
            channel.ensureConnected();
            long written = 0;
            while (written < src.byteSize()) {
                long n = RsocketVerbs.iowrite(writeErrno, channel.fd, src.asSlice(written), src.byteSize() - written,
                        offset + written, 0);
                if (n > 0) {
                    written += n;
                } else if (n == 0) {
                    // riowrite stops at the first byte no peer mapping covers and returns
                    // what it wrote: 0 here is "unmapped", not "full" (that is -1, EAGAIN).
                    throw new java.net.SocketException("riowrite on rsocket " + channel.fd + ": no mapping of the"
                            + " peer covers offset " + (offset + written) + " (the peer maps regions with iomap;"
                            + " this side needs RdmaSocketOptions.IOMAP_SIZE set before connect to learn of them)");
                } else if (!writeAgain("riowrite(" + (src.byteSize() - written) + " bytes at peer offset "
                        + (offset + written) + ")", n)) {
                    break;
                }
            }
            return written;
        } finally {
            end(writeLock);
        }
    }

    private void checkWritable() throws IOException {
        channel.ensureConnected();
        if (channel.outputShut) {
            throw new ClosedChannelException();
        }
    }

    /**
     * After a send returned {@code n} <= 0: true to call again (EINTR, or writable after a
     * wait), false when non-blocking and full; throws on a real error or when the wait ends.
     */
    private boolean writeAgain(String call, long n) throws IOException {
        int e = n < 0 ? Errno.get(writeErrno) : Rsockets.EAGAIN;
        if (e == Errno.EINTR) {
            return true;
        }
        if (e != Rsockets.EAGAIN) {
            throw Rsockets.failure(call, "rsocket " + channel.fd + " to " + channel.remoteForMessages(), e);
        }
        if (!channel.isBlocking()) {
            return false;
        }
        channel.awaitReady(Rsockets.POLLOUT, "write");
        return true;
    }

    /** rshutdown; blocking inside rsockets until the sends in flight completed (rxe acks them). */
    void shutdown(int how, String name) throws IOException {
        // Under the lock of the side it shuts: no rsend runs beside a SHUT_WR.
        ReentrantLock side = how == 0 ? readLock : writeLock;
        begin(side);
        try (Arena a = Arena.ofConfined()) {
            channel.ensureConnected();
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.shutdown(errno, channel.fd, how) != 0) {
                throw Rsockets.failure("rshutdown(" + name + ")", "rsocket " + channel.fd, Errno.get(errno));
            }
        } finally {
            end(side);
        }
    }
}
