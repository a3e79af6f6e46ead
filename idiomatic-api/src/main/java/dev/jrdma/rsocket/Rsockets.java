// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.bindings.generated.rsocket_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.Posix;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What the socket classes share: addresses, errors, and the readiness wait through rpoll. */
final class Rsockets {
    private Rsockets() {}

    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = rsocket_h.SOCK_STREAM();
    static final short POLLIN = (short) rsocket_h.POLLIN();
    static final short POLLOUT = (short) rsocket_h.POLLOUT();
    static final short POLLERR = (short) rsocket_h.POLLERR();
    static final short POLLHUP = (short) rsocket_h.POLLHUP();
    static final int EAGAIN = Errno.EAGAIN;
    static final int EINPROGRESS = dev.jrdma.bindings.generated.rdma_h.EINPROGRESS();
    static final int F_GETFL = rsocket_h.F_GETFL();
    static final int F_SETFL = rsocket_h.F_SETFL();
    static final int O_NONBLOCK = rsocket_h.O_NONBLOCK();
    /** sizeof(struct sockaddr_storage). */
    static final int SOCKADDR_SIZE = 128;

    /**
     * The longest one rpoll call lasts: a close from another thread is seen between slices,
     * and must not free the rsocket while an rpoll still reads it (see {@link Guard}).
     */
    static final int SLICE_MILLIS = 50;

    /**
     * Platform threads that run the rpoll of a waiting virtual thread. rpoll is a native call
     * that may block: a virtual thread inside it would hold its carrier for the whole wait, so
     * the virtual thread parks on the slice loop's future instead, and parking unmounts it.
     */
    private static final ExecutorService RPOLLERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "jrdma-rpoll");
        t.setDaemon(true);
        return t;
    });

    /** Writes {@code address} as a sockaddr into {@code sa}; returns its length. */
    static int encode(SocketAddress address, MemorySegment sa) {
        if (!(address instanceof InetSocketAddress inet)) {
            throw new UnsupportedAddressTypeException();
        }
        if (inet.isUnresolved()) {
            throw new UnresolvedAddressException();
        }
        sa.fill((byte) 0);
        InetAddress ip = inet.getAddress();
        short port = Short.reverseBytes((short) inet.getPort());   // network order
        if (ip instanceof Inet4Address) {
            sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET);
            sa.set(ValueLayout.JAVA_SHORT, 2, port);
            MemorySegment.copy(ip.getAddress(), 0, sa, ValueLayout.JAVA_BYTE, 4, 4);
            return 16;
        }
        Inet6Address ip6 = (Inet6Address) ip;
        sa.set(ValueLayout.JAVA_SHORT, 0, (short) AF_INET6);
        sa.set(ValueLayout.JAVA_SHORT, 2, port);
        MemorySegment.copy(ip6.getAddress(), 0, sa, ValueLayout.JAVA_BYTE, 8, 16);
        sa.set(ValueLayout.JAVA_INT, 24, ip6.getScopeId());
        return 28;
    }

    static InetSocketAddress decode(MemorySegment sa) {
        int family = sa.get(ValueLayout.JAVA_SHORT, 0);
        int port = Short.toUnsignedInt(Short.reverseBytes(sa.get(ValueLayout.JAVA_SHORT, 2)));
        try {
            if (family == AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(sa.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE)), port);
            }
            if (family == AF_INET6) {
                return new InetSocketAddress(Inet6Address.getByAddress(null,
                        sa.asSlice(8, 16).toArray(ValueLayout.JAVA_BYTE), sa.get(ValueLayout.JAVA_INT, 24)), port);
            }
        } catch (UnknownHostException e) {
            throw new AssertionError("a 4- or 16-byte address is always valid", e);
        }
        throw new IllegalStateException("rsocket returned an address of family " + family);
    }

    /** An IOException for a failed rsocket call, naming the call, what it was about, and errno. */
    static IOException failure(String call, Object about, int errno) {
        String text = call + " (" + about + ") failed: " + Posix.strerror(errno) + " (errno " + errno + ")";
        return switch (errno) {
            case 111, 113, 110 -> new ConnectException(text);   // ECONNREFUSED, EHOSTUNREACH, ETIMEDOUT
            default -> new SocketException(text);
        };
    }

    /** Puts {@code fd} in O_NONBLOCK mode: jrdma never lets an rsocket call block natively. */
    static void setNonBlocking(int fd, MemorySegment errno) throws IOException {
        int flags = RsocketVerbs.fcntl(errno, fd, F_GETFL, 0);
        if (flags < 0 || RsocketVerbs.fcntl(errno, fd, F_SETFL, flags | O_NONBLOCK) < 0) {
            throw failure("rfcntl(O_NONBLOCK)", "rsocket " + fd, Errno.get(errno));
        }
    }

    /**
     * Waits until {@code fd} reports one of {@code events} (or an error or hang-up), the time
     * passes, or {@code stop} holds. Returns the revents, 0 on timeout or stop.
     */
    static int await(int fd, short events, long timeoutMillis, BooleanSupplier stop) throws IOException {
        if (!Thread.currentThread().isVirtual()) {
            return pollSlices(fd, events, timeoutMillis, stop);
        }
        // The slice loop ends within its timeout plus one slice, so the waits below are bounded;
        // an interrupt abandons it, and the loop is still waited for: the caller's guard must
        // not be left while an rpoll on the rsocket may be running.
        java.util.concurrent.atomic.AtomicBoolean abandon = new java.util.concurrent.atomic.AtomicBoolean();
        Future<Integer> wait = RPOLLERS.submit(
                () -> pollSlices(fd, events, timeoutMillis, () -> abandon.get() || stop.getAsBoolean()));
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return wait.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                    abandon.set(true);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IllegalStateException("rpoll(rsocket " + fd + ") failed", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int pollSlices(int fd, short events, long timeoutMillis, BooleanSupplier stop) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = arena.allocate(8);
            MemorySegment errno = Errno.allocate(arena);
            while (!stop.getAsBoolean()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left < 0) {
                    return 0;
                }
                pfd.set(ValueLayout.JAVA_INT, 0, fd);
                pfd.set(ValueLayout.JAVA_SHORT, 4, events);
                pfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
                int n = RsocketVerbs.poll(errno, pfd, 1, (int) Math.min(left, SLICE_MILLIS));
                if (n > 0) {
                    return pfd.get(ValueLayout.JAVA_SHORT, 6);
                }
                if (n < 0 && Errno.get(errno) != Errno.EINTR) {
                    throw failure("rpoll", "rsocket " + fd, Errno.get(errno));
                }
            }
            return 0;
        }
    }

    static boolean isBigEndian() {
        return ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN;
    }
}
