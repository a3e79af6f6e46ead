// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.Timeouts;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A minimal out-of-band exchange of {@link Endpoint}s over TCP, for programs that connect
 * queue pairs without rdma_cm: each side sends its 28-byte {@link Endpoint#toBytes()} and
 * reads the peer's. Every step is bounded by the timeout.
 *
 * <p>Exceptions, as for {@link ControlConnection}: whatever goes wrong on the TCP side is an
 * {@link IOException}, a step that runs out of time included: that is a
 * {@link SocketTimeoutException}, as the JDK's own socket timeouts, whose message names the
 * step, the peer and the timeout. So one {@code catch (IOException e)} handles a peer that is
 * absent, slow or gone. What goes wrong on the RDMA side (a queue pair transition) is an
 * unchecked {@link RdmaException}. Thread-safe (no state).
 *
 * <p>Socket ownership: the methods that take an address or a {@link ServerSocket} open their
 * own connection and close it before they return (the server socket itself stays open, for
 * the next client); the methods that take a connected {@link Socket} leave it open. To keep
 * talking to the peer after the exchange (its {@link RemoteMemory}, "done" messages), use
 * {@link ControlConnection}, which owns its socket and carries those messages.
 *
 * <p>Prefer the methods that take a {@link QueuePair}: they connect the queue pair and return
 * only when the peer's queue pair is connected too. With the endpoint-only methods each side
 * connects on its own, and a SEND posted by the faster side can reach a queue pair that is
 * still in INIT: the responder drops it and only RC retransmission (after the ACK timeout)
 * delivers it, while UC and UD lose it.
 */
public final class EndpointExchange {
    /** Sent by each side once its queue pair is in RTS. */
    private static final int READY = 0x52;

    private EndpointExchange() {}

    /**
     * {@link #connect(InetSocketAddress, QueuePair, ConnectionOptions, Duration)} with
     * {@link ConnectionOptions#DEFAULTS}.
     *
     * @param server  the server's TCP address
     * @param qp      the queue pair to connect, in RESET or INIT
     * @param timeout the bound of each step (TCP connect, every read)
     * @return the server's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint connect(InetSocketAddress server, QueuePair qp, Duration timeout) throws IOException {
        return connect(server, qp, ConnectionOptions.DEFAULTS, timeout);
    }

    /**
     * {@link #accept(ServerSocket, QueuePair, ConnectionOptions, Duration)} with
     * {@link ConnectionOptions#DEFAULTS}.
     *
     * @param listener the bound server socket to accept one client on
     * @param qp       the queue pair to connect, in RESET or INIT
     * @param timeout  the bound of each step (accept, every read)
     * @return the client's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint accept(ServerSocket listener, QueuePair qp, Duration timeout) throws IOException {
        return accept(listener, qp, ConnectionOptions.DEFAULTS, timeout);
    }

    /**
     * Client side: connects to {@code server} over TCP, swaps endpoints, moves {@code qp} to RTS
     * towards the server's queue pair and returns once the server reports its queue pair in RTS
     * too, so the first message either side posts finds a peer ready to receive it. The TCP
     * connection is closed before this returns. Connects once: a server that does not listen
     * yet is an IOException ("Connection refused"); {@link ControlConnection#connect} retries.
     *
     * @param server  the server's TCP address
     * @param qp      a queue pair in RESET or INIT (post receives in INIT before calling this)
     * @param options the transition attributes (access rights, timeouts, SL, ...)
     * @param timeout the bound of each step (TCP connect, every read)
     * @return the server's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint connect(InetSocketAddress server, QueuePair qp, ConnectionOptions options,
                                   Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            connectSocket(socket, server, timeout);
            return connect(socket, qp, options, timeout);
        }
    }

    /**
     * Server side of {@link #connect(InetSocketAddress, QueuePair, ConnectionOptions, Duration)}:
     * accepts one client on {@code listener} (bounded by {@code timeout}), swaps endpoints, moves
     * {@code qp} to RTS and waits until the client's queue pair is in RTS as well. The accepted
     * connection is closed before this returns; {@code listener} stays open.
     *
     * @param listener the bound server socket to accept one client on
     * @param qp       a queue pair in RESET or INIT
     * @param options  the transition attributes (access rights, timeouts, SL, ...)
     * @param timeout  the bound of each step (accept, every read)
     * @return the client's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint accept(ServerSocket listener, QueuePair qp, ConnectionOptions options,
                                  Duration timeout) throws IOException {
        try (Socket socket = acceptSocket(listener, timeout)) {
            return connect(socket, qp, options, timeout);
        }
    }

    /**
     * The symmetric step on an already connected socket (either side; the socket stays open for
     * the application's own messages): swap endpoints, connect {@code qp} (RESET or INIT -> RTR
     * -> RTS), then swap a one-byte "ready" so that neither side returns before the other's
     * queue pair can receive.
     *
     * @param socket  a connected socket; left open
     * @param qp      a queue pair in RESET or INIT
     * @param options the transition attributes (access rights, timeouts, SL, ...)
     * @param timeout the bound of every read
     * @return the peer's endpoint
     * @throws IOException on TCP failures, or a peer that closed before it was ready
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint connect(Socket socket, QueuePair qp, ConnectionOptions options, Duration timeout)
            throws IOException {
        Endpoint local = qp.localEndpoint();
        Endpoint remote = exchange(socket, local, timeout);
        if (qp.state() == QueuePairState.RESET) {
            qp.toInit(options);
        }
        qp.toRtr(remote, options);
        qp.toRts(options);
        OutputStream out = socket.getOutputStream();
        out.write(READY);
        out.flush();
        int peer;
        try {
            peer = socket.getInputStream().read();
        } catch (SocketTimeoutException e) {
            throw timedOut("no ready byte from the peer (" + remote + ")", socket, timeout, e);
        }
        if (peer != READY) {
            throw new IOException(peer < 0
                    ? "the peer closed the connection before its queue pair was ready (" + remote + ")"
                    : String.format("the peer sent 0x%02x instead of the ready byte 0x%02x", peer, READY));
        }
        return remote;
    }

    /**
     * Client side, endpoints only: connects to {@code server}, exchanges endpoints and closes the
     * connection. The caller connects its queue pair afterwards (see the class comment's caveat).
     *
     * @param server  the server's TCP address
     * @param local   this side's endpoint
     * @param timeout the bound of each step
     * @return the server's endpoint
     * @throws IOException on TCP failures
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint connect(InetSocketAddress server, Endpoint local, Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            connectSocket(socket, server, timeout);
            return exchange(socket, local, timeout);
        }
    }

    /**
     * Server side, endpoints only: accepts one client on {@code server}, exchanges endpoints and
     * closes that connection ({@code server} stays open).
     *
     * @param server  the bound server socket
     * @param local   this side's endpoint
     * @param timeout the bound of each step
     * @return the client's endpoint
     * @throws IOException on TCP failures
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint accept(ServerSocket server, Endpoint local, Duration timeout) throws IOException {
        try (Socket socket = acceptSocket(server, timeout)) {
            return exchange(socket, local, timeout);
        }
    }

    /**
     * Sends {@code local} on a connected socket and reads the peer's endpoint. Both sides may
     * call it at once: the 28 bytes fit any socket buffer, so writing first cannot deadlock.
     *
     * @param socket  a connected socket; left open
     * @param local   this side's endpoint
     * @param timeout the bound of the read
     * @return the peer's endpoint
     * @throws IOException on TCP failures
     * @throws SocketTimeoutException when a step runs out of time (an IOException)
     */
    public static Endpoint exchange(Socket socket, Endpoint local, Duration timeout) throws IOException {
        socket.setSoTimeout(Timeouts.millis(timeout));
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        out.write(local.toBytes());
        out.flush();
        byte[] remote = new byte[Endpoint.BYTES];
        try {
            new DataInputStream(socket.getInputStream()).readFully(remote);
        } catch (SocketTimeoutException e) {
            throw timedOut("no endpoint from the peer", socket, timeout, e);
        }
        return Endpoint.fromBytes(remote);
    }

    /** One TCP connect bounded by {@code timeout}; a timeout is a SocketTimeoutException saying so. */
    static void connectSocket(Socket socket, InetSocketAddress server, Duration timeout) throws IOException {
        try {
            socket.connect(server, Timeouts.millis(timeout));
        } catch (SocketTimeoutException e) {
            throw timedOut("no TCP connection", server, timeout, e);
        }
    }

    /** One accept bounded by {@code timeout}; a timeout is a SocketTimeoutException saying so. */
    static Socket acceptSocket(ServerSocket listener, Duration timeout) throws IOException {
        listener.setSoTimeout(Timeouts.millis(timeout));
        try {
            return listener.accept();
        } catch (SocketTimeoutException e) {
            throw timedOut("no client connected", "TCP port " + listener.getLocalPort(), timeout, e);
        }
    }

    /**
     * The exception for a TCP step that ran out of time: the JDK's type, so that
     * {@code catch (IOException e)} sees it, with a message in jrdma's form ("what on what within
     * 30 s") instead of the JDK's "Read timed out".
     */
    static SocketTimeoutException timedOut(String what, Object on, Duration timeout, Throwable cause) {
        SocketTimeoutException e = new SocketTimeoutException(what + " on " + on + " within "
                + RdmaTimeoutException.plain(timeout));
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }
}
