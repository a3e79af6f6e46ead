// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.Timeouts;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * The TCP connection beside an RDMA one. Before two queue pairs can talk each side must learn
 * the other's {@link Endpoint}, and before one-sided operations the initiator must learn the
 * target's {@link RemoteMemory}; RDMA WRITE and READ then leave the target's CPU uninformed, so
 * "done" usually travels back the same way. This connection carries all of that: it connects
 * a queue pair ({@link #connect(QueuePair)}), then small typed messages (remote memory
 * descriptors, longs, byte arrays) in both directions.
 *
 * <pre>{@code
 * // server                                         // client
 * try (ServerSocket listener = new ServerSocket(port);
 *      ControlConnection peer = ControlConnection.accept(listener, timeout)) {
 *     peer.connect(qp);                             // ControlConnection.connect(address, timeout)
 *     peer.send(region.remote());                   // RemoteMemory target = peer.receiveRemoteMemory();
 *     long done = peer.receiveLong();               // ... RDMA WRITE ...; peer.send(1L);
 * }
 * }</pre>
 *
 * <p>Socket ownership: the connection owns its socket and {@link #close()} closes it;
 * {@link #accept(ServerSocket, Duration)} leaves the server socket open for the next client.
 * Every read is bounded by the timeout given when the connection was made.
 *
 * <p>Exceptions: this is a socket, and everything that goes wrong with it is an
 * {@link IOException}, as with any socket in Java: a peer that never listens, closes, sends
 * the wrong message or runs out of time. A timeout (no server listening within the timeout, no
 * client, no message) is a {@link SocketTimeoutException}, the JDK's type for socket timeouts,
 * with a message naming what did not arrive, from where, and the timeout, e.g.
 * {@code no long message from the peer on control connection to /10.200.0.1:7471 within 30 s};
 * catch it before {@code IOException} to treat a slow or absent peer apart. Only the RDMA side of
 * {@link #connect(QueuePair)} (the queue pair's transitions) throws an unchecked
 * {@link RdmaException}. Each message is tagged with its type,
 * so a program that expects a {@code long} where the peer sent a {@code RemoteMemory} gets an
 * IOException naming both instead of misread bytes (the connection is then out of step: close
 * it). Thread safety: one thread sends and one
 * thread receives at a time.
 */
public final class ControlConnection implements AutoCloseable {
    private static final byte REMOTE_MEMORY = 'M';
    private static final byte LONG = 'L';
    private static final byte BYTES = 'B';
    /** The largest byte array {@link #send(byte[])} carries: control messages are small. */
    public static final int MAX_BYTES = 1 << 20;
    /** The first pause between attempts to reach a server that does not listen yet; doubles up to 1 s. */
    private static final long FIRST_RETRY_MILLIS = 50;

    private final Socket socket;
    private final Duration timeout;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final SocketAddress peer;
    /** The queue pair {@link #connect(QueuePair)} connected, for the closed event; null before. */
    private volatile QueuePair connected;
    private volatile Endpoint remote;

    private ControlConnection(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.timeout = timeout;
        this.peer = socket.getRemoteSocketAddress();
        socket.setSoTimeout(Timeouts.millis(timeout));
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /**
     * Client side: connects to {@code server}, retrying while nobody listens there yet
     * ("connection refused": the server has not started), until {@code timeout} has passed.
     *
     * @param server  the server's TCP address
     * @param timeout how long to keep trying, and afterwards the bound of every read
     * @return the connection
     * @throws SocketTimeoutException when no server accepted within {@code timeout}
     * @throws IOException            on other TCP failures (unknown host, no route, ...)
     */
    public static ControlConnection connect(InetSocketAddress server, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = FIRST_RETRY_MILLIS;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw EndpointExchange.timedOut("no server listening", server, timeout, null);
            }
            Socket socket = new Socket();
            try {
                EndpointExchange.connectSocket(socket, server, Duration.ofNanos(Math.max(left, 1_000_000L)));
                return new ControlConnection(socket, timeout);
            } catch (ConnectException refused) {
                socket.close();
                long sleep = Math.min(pause, (deadline - System.nanoTime()) / 1_000_000L);
                if (sleep <= 0) {
                    throw EndpointExchange.timedOut("no server listening", server, timeout, refused);
                }
                sleep(sleep);
                pause = Math.min(pause * 2, 1000);
            } catch (SocketTimeoutException slow) {
                // The attempt had what was left of the timeout: the last ones can have a
                // millisecond, less than even a refusal takes on a slow machine.
                socket.close();
                throw EndpointExchange.timedOut("no server listening", server, timeout, slow);
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
        }
    }

    /**
     * Server side: waits up to {@code timeout} for the next client on {@code listener}, which
     * stays open.
     *
     * @param listener a bound server socket
     * @param timeout  how long to wait for a client, and afterwards the bound of every read
     * @return the connection to the client
     * @throws SocketTimeoutException when no client connected in time
     * @throws IOException            on TCP failures
     */
    public static ControlConnection accept(ServerSocket listener, Duration timeout) throws IOException {
        Socket socket = EndpointExchange.acceptSocket(listener, timeout);
        try {
            return new ControlConnection(socket, timeout);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * {@link #connect(QueuePair, ConnectionOptions)} with {@link ConnectionOptions#DEFAULTS}.
     *
     * @param qp a queue pair in RESET or INIT
     * @return the peer's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     */
    public Endpoint connect(QueuePair qp) throws IOException {
        return connect(qp, ConnectionOptions.DEFAULTS);
    }

    /**
     * Swaps endpoints with the peer, moves {@code qp} to RTS towards the peer's queue pair and
     * returns once the peer's queue pair is in RTS too (both sides call this), so the first
     * message either side posts finds a peer ready to receive it. Post receives in INIT before.
     *
     * @param qp      a queue pair in RESET or INIT
     * @param options the transition attributes (access rights, timeouts, SL, ...)
     * @return the peer's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     */
    public Endpoint connect(QueuePair qp, ConnectionOptions options) throws IOException {
        Endpoint peerEndpoint = EndpointExchange.connect(socket, qp, options, timeout);
        connected = qp;
        remote = peerEndpoint;
        Events.connectionEstablished(String.valueOf(peer), qp, peerEndpoint);
        return peerEndpoint;
    }

    /**
     * Sends {@code local} and returns the peer's endpoint, for programs that connect their
     * queue pairs themselves (UD, or more than one queue pair per connection).
     *
     * @param local this side's endpoint
     * @return the peer's endpoint
     * @throws IOException on TCP failures
     */
    public Endpoint exchange(Endpoint local) throws IOException {
        return EndpointExchange.exchange(socket, local, timeout);
    }

    /**
     * Sends the address, length and rkey of memory the peer may access.
     *
     * @param memory e.g. {@link MemoryRegion#remote()}
     * @throws IOException on TCP failures
     */
    public void send(RemoteMemory memory) throws IOException {
        out.writeByte(REMOTE_MEMORY);
        out.write(memory.toBytes());
        out.flush();
    }

    /**
     * {@return the next message, which must be a {@link #send(RemoteMemory)}}
     *
     * @throws SocketTimeoutException when no message arrives within the timeout
     * @throws IOException            on TCP failures, or another kind of message
     */
    public RemoteMemory receiveRemoteMemory() throws IOException {
        expect(REMOTE_MEMORY);
        byte[] bytes = new byte[RemoteMemory.BYTES];
        read(() -> in.readFully(bytes));
        return RemoteMemory.fromBytes(bytes);
    }

    /**
     * Sends a number (a count, an offset, or just "done").
     *
     * @param value the number
     * @throws IOException on TCP failures
     */
    public void send(long value) throws IOException {
        out.writeByte(LONG);
        out.writeLong(value);
        out.flush();
    }

    /**
     * {@return the next message, which must be a {@link #send(long)}}
     *
     * @throws SocketTimeoutException when no message arrives within the timeout
     * @throws IOException            on TCP failures, or another kind of message
     */
    public long receiveLong() throws IOException {
        expect(LONG);
        long[] value = new long[1];
        read(() -> value[0] = in.readLong());
        return value[0];
    }

    /**
     * Sends up to {@link #MAX_BYTES} bytes as one message.
     *
     * @param bytes the message
     * @throws IOException on TCP failures
     */
    public void send(byte[] bytes) throws IOException {
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("a control message carries at most " + MAX_BYTES + " bytes, not "
                    + bytes.length + "; move bulk data over RDMA");
        }
        out.writeByte(BYTES);
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    /**
     * {@return the next message, which must be a {@link #send(byte[])}}
     *
     * @throws SocketTimeoutException when no message arrives within the timeout
     * @throws IOException            on TCP failures, or another kind of message
     */
    public byte[] receiveBytes() throws IOException {
        expect(BYTES);
        int[] length = new int[1];
        read(() -> length[0] = in.readInt());
        if (length[0] < 0 || length[0] > MAX_BYTES) {
            throw new IOException("the peer announced a message of " + length[0] + " bytes (at most " + MAX_BYTES
                    + "): is it speaking another protocol?");
        }
        byte[] bytes = new byte[length[0]];
        read(() -> in.readFully(bytes));
        return bytes;
    }

    /** {@return the peer's TCP address} */
    public SocketAddress peer() {
        return peer;
    }

    /** {@return the bound of every read} */
    public Duration timeout() {
        return timeout;
    }

    /** Closes the TCP connection (not the queue pair it connected). Idempotent. */
    @Override
    public void close() throws IOException {
        if (!socket.isClosed()) {
            QueuePair qp = connected;
            if (qp != null) {
                Events.connectionClosed(String.valueOf(peer), qp, remote);
            }
        }
        socket.close();
    }

    /** {@code control connection to <peer>}. */
    @Override
    public String toString() {
        return "control connection to " + peer;
    }

    private interface Read {
        void run() throws IOException;
    }

    private void read(Read read) throws IOException {
        try {
            read.run();
        } catch (SocketTimeoutException e) {
            throw EndpointExchange.timedOut("no message from the peer", this, timeout, e);
        } catch (EOFException e) {
            throw new IOException("the peer closed " + this + " in the middle of a message", e);
        }
    }

    private void expect(byte type) throws IOException {
        int got;
        try {
            got = in.read();
        } catch (SocketTimeoutException e) {
            throw EndpointExchange.timedOut("no " + kind(type) + " from the peer", this, timeout, e);
        }
        if (got < 0) {
            throw new IOException("the peer closed " + this + " while a " + kind(type) + " was expected");
        }
        if (got != type) {
            throw new IOException("expected a " + kind(type) + " from the peer, but it sent a " + kind((byte) got)
                    + ": do both sides send and receive in the same order?");
        }
    }

    private static String kind(byte type) {
        return switch (type) {
            case REMOTE_MEMORY -> "RemoteMemory message";
            case LONG -> "long message";
            case BYTES -> "byte[] message";
            default -> String.format("message of unknown type 0x%02x", type);
        };
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for the server to listen");
        }
    }
}
