// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.Reaches;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RsocketVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NetworkChannel;
import java.time.Duration;

/**
 * What every rsocket channel has: its rsocket, the {@link Guard} that keeps rclose from freeing
 * it under a call in flight, blocking mode, the bound on its blocking waits, rbind, the typed
 * options and rclose. {@code C} is the channel's own type, so that the setters chain.
 *
 * @param <C> the channel type
 */
public abstract sealed class RsocketChannel<C extends RsocketChannel<C>> implements NetworkChannel
        permits RdmaSocketChannel, RdmaServerSocketChannel, RdmaDatagramChannel {
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    final int fd;
    final Guard guard = new Guard();
    private volatile boolean blocking = true;
    volatile long timeoutMillis = DEFAULT_TIMEOUT.toMillis();

    RsocketChannel(int fd) {
        this.fd = fd;
    }

    @SuppressWarnings("unchecked")
    private C self() {
        return (C) this;
    }

    /** {@return the rsocket's descriptor (an rsockets index, not a kernel file descriptor)} */
    public int rsocket() {
        return fd;
    }

    /**
     * Chooses blocking or non-blocking calls.
     *
     * @param block true for blocking
     * @return this channel
     * @throws ClosedChannelException if the channel is closed
     */
    public C configureBlocking(boolean block) throws IOException {
        ensureOpen();
        this.blocking = block;
        return self();
    }

    /** {@return whether the channel's calls block} */
    public boolean isBlocking() {
        return blocking;
    }

    /**
     * Bounds every blocking wait of this channel; a wait that runs out throws
     * {@link java.net.SocketTimeoutException}.
     *
     * @param timeout positive
     * @return this channel
     */
    public C timeout(Duration timeout) {
        this.timeoutMillis = Rsockets.timeoutMillis(timeout);
        return self();
    }

    /** {@return the bound on every blocking wait (default 30 s)} */
    public Duration timeout() {
        return Duration.ofMillis(timeoutMillis);
    }

    /** A call on the rsocket, made between the guard's begin and end. */
    interface Call<T> {
        T run() throws IOException;
    }

    /** Runs {@code call} while the guard keeps rclose away (ClosedChannelException when closed). */
    <T> T guarded(Call<T> call) throws IOException {
        guard.begin();
        try {
            return call.run();
        } finally {
            guard.end();
        }
    }

    /**
     * Binds the rsocket to {@code local} ({@code rbind}).
     *
     * @param local an address of an RDMA device's netdev and a port; null: any address, any port
     * @return this channel
     * @throws IOException if rbind fails (the message names the address and errno)
     */
    @Override
    @Reaches({"rbind"})
    public C bind(SocketAddress local) throws IOException {
        return guarded(() -> {
            checkBindable();
            try (Arena a = Arena.ofConfined()) {
                SocketAddress address = local == null ? new InetSocketAddress(0) : local;
                MemorySegment sa = a.allocate(Rsockets.SOCKADDR_SIZE);
                int len = Rsockets.encode(address, sa);
                MemorySegment errno = Errno.allocate(a);
                if (RsocketVerbs.bind(errno, fd, sa, len) != 0) {
                    throw Rsockets.failure("rbind", address, Errno.get(errno));
                }
            }
            bound();
            return self();
        });
    }

    /** Before rbind: throws if this channel may not be bound now. */
    void checkBindable() throws IOException {}

    /** After rbind. */
    void bound() throws IOException {}

    @Override
    @Reaches({"rgetsockname"})
    public InetSocketAddress getLocalAddress() throws IOException {
        return guarded(() -> Rsockets.name(fd, false));
    }

    @Override
    @Reaches({"rsetsockopt"})
    public <T> C setOption(SocketOption<T> name, T value) throws IOException {
        return guarded(() -> {
            SocketOptionCodec.set(fd, name, value);
            return self();
        });
    }

    @Override
    @Reaches({"rgetsockopt"})
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return guarded(() -> SocketOptionCodec.get(fd, name));
    }

    @Override
    public boolean isOpen() {
        return !guard.isClosed();
    }

    void ensureOpen() throws ClosedChannelException {
        if (guard.isClosed()) {
            throw new ClosedChannelException();
        }
    }

    /**
     * Closes the rsocket. A call or wait in another thread ends with
     * {@link AsynchronousCloseException} within one pause of its wait; rclose runs after they left.
     */
    @Override
    @Reaches({"rclose"})
    public void close() throws IOException {
        if (!guard.close()) {
            return;
        }
        closing();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(a);
            if (RsocketVerbs.close(errno, fd) != 0) {
                throw Rsockets.failure("rclose", "rsocket " + fd, Errno.get(errno));
            }
        } finally {
            closed();
        }
    }

    /** Before rclose, with no call in flight any more. */
    void closing() {}

    /** After rclose: frees what the channel kept beside its rsocket. */
    void closed() {}
}
