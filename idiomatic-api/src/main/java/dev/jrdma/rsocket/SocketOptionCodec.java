// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.bindings.generated.rsocket_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Map;
import java.util.Set;

/** Typed socket options to and from rsetsockopt/rgetsockopt, with the checks rsockets lacks. */
final class SocketOptionCodec {
    private SocketOptionCodec() {}

    /** SO_RCVBUF/SO_SNDBUF: rsockets doubles the value in 32 bits. */
    static final int MAX_BUFFER = 1 << 30;

    static final Set<SocketOption<?>> STREAM_OPTIONS = Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.SO_KEEPALIVE,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_LINGER, RdmaSocketOptions.SQ_SIZE,
            RdmaSocketOptions.RQ_SIZE, RdmaSocketOptions.INLINE_SIZE, RdmaSocketOptions.IOMAP_SIZE);

    private record Native(int level, int name, String cName) {}

    private static final Map<SocketOption<?>, Native> NATIVE = Map.of(
            StandardSocketOptions.SO_RCVBUF, new Native(rsocket_h.SOL_SOCKET(), rsocket_h.SO_RCVBUF(), "SO_RCVBUF"),
            StandardSocketOptions.SO_SNDBUF, new Native(rsocket_h.SOL_SOCKET(), rsocket_h.SO_SNDBUF(), "SO_SNDBUF"),
            StandardSocketOptions.SO_KEEPALIVE,
            new Native(rsocket_h.SOL_SOCKET(), rsocket_h.SO_KEEPALIVE(), "SO_KEEPALIVE"),
            StandardSocketOptions.SO_REUSEADDR,
            new Native(rsocket_h.SOL_SOCKET(), rsocket_h.SO_REUSEADDR(), "SO_REUSEADDR"),
            StandardSocketOptions.SO_LINGER, new Native(rsocket_h.SOL_SOCKET(), rsocket_h.SO_LINGER(), "SO_LINGER"),
            StandardSocketOptions.TCP_NODELAY, new Native(rsocket_h.IPPROTO_TCP(), rsocket_h.TCP_NODELAY(), "TCP_NODELAY"),
            RdmaSocketOptions.SQ_SIZE, new Native(rsocket_h.SOL_RDMA(), rsocket_h.RDMA_SQSIZE(), "RDMA_SQSIZE"),
            RdmaSocketOptions.RQ_SIZE, new Native(rsocket_h.SOL_RDMA(), rsocket_h.RDMA_RQSIZE(), "RDMA_RQSIZE"),
            RdmaSocketOptions.INLINE_SIZE, new Native(rsocket_h.SOL_RDMA(), rsocket_h.RDMA_INLINE(), "RDMA_INLINE"),
            RdmaSocketOptions.IOMAP_SIZE, new Native(rsocket_h.SOL_RDMA(), rsocket_h.RDMA_IOMAPSIZE(), "RDMA_IOMAPSIZE"));
    private static final Native SO_ERROR = new Native(rsocket_h.SOL_SOCKET(), rsocket_h.SO_ERROR(), "SO_ERROR");

    private static Native of(SocketOption<?> option) {
        Native n = NATIVE.get(option);
        if (n == null) {
            throw new UnsupportedOperationException("rsockets do not support the socket option " + option
                    + " (supported: " + STREAM_OPTIONS + ")");
        }
        return n;
    }

    static <T> void set(int fd, SocketOption<T> option, T value) throws IOException {
        if (option == null) {
            throw new NullPointerException("option");
        }
        Native n = of(option);
        if (value == null && option != StandardSocketOptions.SO_LINGER) {
            throw new IllegalArgumentException(n.cName + ": value must not be null");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment v = arena.allocate(8);
            int len = 4;
            if (value instanceof Boolean b) {
                v.set(ValueLayout.JAVA_INT, 0, b ? 1 : 0);
            } else if (option == StandardSocketOptions.SO_LINGER) {
                int seconds = value == null ? -1 : (Integer) value;
                v.set(ValueLayout.JAVA_INT, 0, seconds < 0 ? 0 : 1);
                v.set(ValueLayout.JAVA_INT, 4, Math.max(0, seconds));
                len = 8;
            } else {
                int i = (Integer) value;
                check(n, option, i);
                v.set(ValueLayout.JAVA_INT, 0, i);
            }
            if (RsocketVerbs.setsockopt(errno, fd, n.level, n.name, v, len) != 0) {
                int e = Errno.get(errno);
                String hint = n.level == rsocket_h.SOL_RDMA() && e == Errno.EINVAL
                        ? "; SOL_RDMA options size the queue pair and must be set before connect/accept" : "";
                throw new java.net.SocketException("rsetsockopt(" + n.cName + ", " + value + ") on rsocket " + fd
                        + " failed: " + dev.jrdma.bindings.shim.Posix.strerror(e) + " (errno " + e + ")" + hint);
            }
        }
    }

    private static void check(Native n, SocketOption<?> option, int i) {
        if (option == StandardSocketOptions.SO_RCVBUF || option == StandardSocketOptions.SO_SNDBUF) {
            if (i <= 0 || i > MAX_BUFFER) {
                throw new IllegalArgumentException(n.cName + " " + i + " is out of range 1.." + MAX_BUFFER
                        + " (rsockets doubles it in 32 bits)");
            }
        } else {
            int min = option == RdmaSocketOptions.SQ_SIZE || option == RdmaSocketOptions.RQ_SIZE ? 1 : 0;
            if (i < min || i > RdmaSocketOptions.MAX_QUEUE_SIZE) {
                throw new IllegalArgumentException(n.cName + " " + i + " is out of range " + min + ".."
                        + RdmaSocketOptions.MAX_QUEUE_SIZE + " (rsockets' RS_QP_MAX_SIZE; it would clamp silently)");
            }
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T get(int fd, SocketOption<T> option) throws IOException {
        if (option == null) {
            throw new NullPointerException("option");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = get(arena, fd, of(option));
            int i = v.get(ValueLayout.JAVA_INT, 0);
            if (option.type() == Boolean.class) {
                return (T) Boolean.valueOf(i != 0);
            }
            if (option == StandardSocketOptions.SO_LINGER) {
                return (T) Integer.valueOf(i == 0 ? -1 : v.get(ValueLayout.JAVA_INT, 4));
            }
            return (T) Integer.valueOf(i);
        }
    }

    /** SO_ERROR: the error a non-blocking connect ended with (0: none); reading it clears it. */
    static int pendingError(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            return get(arena, fd, SO_ERROR).get(ValueLayout.JAVA_INT, 0);
        }
    }

    /** rgetsockopt of {@code n} into 8 bytes of {@code arena}. */
    private static MemorySegment get(Arena arena, int fd, Native n) throws IOException {
        MemorySegment errno = Errno.allocate(arena);
        MemorySegment v = arena.allocate(8);
        MemorySegment len = arena.allocate(ValueLayout.JAVA_INT);
        len.set(ValueLayout.JAVA_INT, 0, 8);
        if (RsocketVerbs.getsockopt(errno, fd, n.level, n.name, v, len) != 0) {
            throw Rsockets.failure("rgetsockopt(" + n.cName + ")", "rsocket " + fd, Errno.get(errno));
        }
        return v;
    }
}
