// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.Reaches;
import dev.jrdma.bindings.generated.rsocket_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A region of this side's memory that the peer may write into directly with
 * {@link RdmaSocketChannel#iowrite} ({@code riomap}): the bytes land in {@link #region()}
 * without a receive call and without any notice. Order is kept with the stream: bytes the
 * peer sends after an iowrite are read only after the iowrite's bytes are in the region, so a
 * message on the stream is how the peer says "written".
 *
 * <p>The peer's socket must have {@link RdmaSocketOptions#IOMAP_SIZE} set (before connect) to
 * at least the number of regions mapped at once: rsockets announces each mapping into the
 * peer's table of that size (set it on both sides, as riostream does). The region must stay
 * allocated until {@link #close()} ({@code riounmap}); closing the socket unmaps it too.
 */
public final class IoMapping implements AutoCloseable {
    private final RdmaSocketChannel channel;
    private final MemorySegment region;
    private final long offset;
    private boolean closed;

    private IoMapping(RdmaSocketChannel channel, MemorySegment region, long offset) {
        this.channel = channel;
        this.region = region;
        this.offset = offset;
    }

    static IoMapping map(RdmaSocketChannel channel, int fd, MemorySegment region, long offset) throws IOException {
        if (!region.isNative()) {
            throw new IllegalArgumentException("riomap needs native memory (a heap segment can move): " + region);
        }
        if (region.byteSize() == 0) {
            throw new IllegalArgumentException("riomap of an empty region");
        }
        if (offset < -1) {
            throw new IllegalArgumentException("offset must be -1 (any) or not negative, got " + offset);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(a);
            long at = RsocketVerbs.iomap(errno, fd, region, region.byteSize(), rsocket_h.PROT_WRITE(), 0, offset);
            if (at == -1) {
                int e = Errno.get(errno);
                String hint = e == Errno.ENOMEM
                        ? "; is RdmaSocketOptions.IOMAP_SIZE set on both sides (before connect) and large enough?"
                        : "";
                throw new java.net.SocketException("riomap(" + region.byteSize() + " bytes at offset " + offset
                        + ") on rsocket " + fd + " failed: " + dev.jrdma.bindings.shim.Posix.strerror(e) + " (errno "
                        + e + ")" + hint);
            }
            return new IoMapping(channel, region, at);
        }
    }

    /** {@return the offset the peer's iowrite addresses this region by} */
    public long offset() {
        return offset;
    }

    /** {@return the mapped memory} */
    public MemorySegment region() {
        return region;
    }

    /**
     * Unmaps the region ({@code riounmap}); idempotent, and a no-op once the socket is closed.
     *
     * @throws IOException if riounmap fails
     */
    @Override
    @Reaches({"riounmap"})
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (channel.guard.isClosed()) {
            return;   // rclose unmapped it
        }
        channel.guard.begin();
        try {
            unmap(channel.fd, region);
        } finally {
            channel.guard.end();
        }
    }

    static void unmap(int fd, MemorySegment region) throws IOException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.iounmap(errno, fd, region, region.byteSize()) != 0) {
                throw Rsockets.failure("riounmap", "rsocket " + fd, Errno.get(errno));
            }
        }
    }
}
