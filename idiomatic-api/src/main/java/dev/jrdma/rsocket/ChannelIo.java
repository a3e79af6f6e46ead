// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
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

    int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        readLock.lock();
        try {
            channel.guard.begin();
            try {
                return readOnce(dst, channel.isBlocking());
            } finally {
                channel.guard.end();
            }
        } finally {
            readLock.unlock();
        }
    }

    long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        readLock.lock();
        try {
            channel.guard.begin();
            try {
                long total = 0;
                for (int i = offset; i < offset + length; i++) {
                    ByteBuffer dst = dsts[i];
                    if (!dst.hasRemaining()) {
                        continue;
                    }
                    // Only the first transfer may wait; after it, take what is there.
                    int n = dst.isDirect() ? readvOnce(dst, channel.isBlocking() && total == 0)
                            : readOnce(dst, channel.isBlocking() && total == 0);
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
                channel.guard.end();
            }
        } finally {
            readLock.unlock();
        }
    }

    private int readOnce(ByteBuffer dst, boolean block) throws IOException {
        if (!checkReadable(dst)) {
            return channel.inputShut ? -1 : 0;
        }
        while (true) {
            MemorySegment seg = MemorySegment.ofBuffer(dst);
            long n = RsocketVerbs.recv(readErrno, channel.fd, seg, seg.byteSize(), 0);
            if (n > 0) {
                dst.position(dst.position() + (int) n);
                return (int) n;
            }
            if (n == 0) {
                return -1;
            }
            if (!readAgain("rrecv", block)) {
                return 0;
            }
        }
    }

    private int readvOnce(ByteBuffer dst, boolean block) throws IOException {
        if (!checkReadable(dst)) {
            return channel.inputShut ? -1 : 0;
        }
        MemorySegment seg = MemorySegment.ofBuffer(dst);
        readIov.set(ValueLayout.ADDRESS, 0, seg);
        readIov.set(ValueLayout.JAVA_LONG, 8, seg.byteSize());
        while (true) {
            long n = RsocketVerbs.readv(readErrno, channel.fd, readIov, 1);
            if (n > 0) {
                dst.position(dst.position() + (int) n);
                return (int) n;
            }
            if (n == 0) {
                return -1;
            }
            if (!readAgain("rreadv", block)) {
                return 0;
            }
        }
    }

    /** {@code rread} into an array (the InputStream); blocking. */
    int readArray(byte[] b, int off, int len) throws IOException {
        readLock.lock();
        try {
            channel.guard.begin();
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
                channel.guard.end();
            }
        } finally {
            readLock.unlock();
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
        writeLock.lock();
        try {
            channel.guard.begin();
            try {
                checkWritable();
                int written = 0;
                while (src.hasRemaining()) {
                    MemorySegment seg = MemorySegment.ofBuffer(src);
                    long n = RsocketVerbs.send(writeErrno, channel.fd, seg, seg.byteSize(), 0);
                    if (n > 0) {
                        src.position(src.position() + (int) n);
                        written += (int) n;
                    } else if (!writeAgain("rsend", n)) {
                        break;
                    }
                }
                return written;
            } finally {
                channel.guard.end();
            }
        } finally {
            writeLock.unlock();
        }
    }

    long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        writeLock.lock();
        try {
            channel.guard.begin();
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
                    long n = srcs[i].isDirect() ? writev(srcs, i, end) : writeHeap(srcs[i]);
                    if (n < 0) {
                        break;   // non-blocking and full: the rest must wait
                    }
                    total += n;
                }
                return total;
            } finally {
                channel.guard.end();
            }
        } finally {
            writeLock.unlock();
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

    /** One rsend of a heap buffer; -1 when non-blocking and full. */
    private long writeHeap(ByteBuffer src) throws IOException {
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
        writeLock.lock();
        try {
            channel.guard.begin();
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
                channel.guard.end();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * {@code riowrite} of {@code src} into the peer's mappings at {@code offset}; blocking mode
     * writes all of it, non-blocking what fits now.
     */
    long iowrite(MemorySegment src, long offset) throws IOException {
        writeLock.lock();
        try {
            channel.guard.begin();
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
                channel.guard.end();
            }
        } finally {
            writeLock.unlock();
        }
    }

    private void checkWritable() throws IOException {
        channel.ensureConnected();
        if (channel.outputShut) {
            throw new java.nio.channels.ClosedChannelException();
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
        side.lock();
        try {
            channel.guard.begin();
            try (Arena a = Arena.ofConfined()) {
                channel.ensureConnected();
                MemorySegment errno = Errno.allocate(a);
                if (RsocketVerbs.shutdown(errno, channel.fd, how) != 0) {
                    throw Rsockets.failure("rshutdown(" + name + ")", "rsocket " + channel.fd, Errno.get(errno));
                }
            } finally {
                channel.guard.end();
            }
        } finally {
            side.unlock();
        }
    }
}
