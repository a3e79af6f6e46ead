package dev.jrdma;

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
 * reads the peer's. Every step is bounded by the timeout ({@link SocketTimeoutException}).
 * Thread-safe (no state).
 */
public final class EndpointExchange {
    private EndpointExchange() {}

    /** Client side: connects to {@code server}, exchanges endpoints, closes the connection; returns the server's. */
    public static Endpoint connect(InetSocketAddress server, Endpoint local, Duration timeout) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(server, timeoutMillis(timeout));
            return exchange(socket, local, timeout);
        }
    }

    /** Server side: accepts one client on {@code server}, exchanges endpoints, closes that connection; returns the client's. */
    public static Endpoint accept(ServerSocket server, Endpoint local, Duration timeout) throws IOException {
        server.setSoTimeout(timeoutMillis(timeout));
        try (Socket socket = server.accept()) {
            return exchange(socket, local, timeout);
        }
    }

    /**
     * Sends {@code local} on a connected socket and reads the peer's endpoint. Both sides may
     * call it at once: the 28 bytes fit any socket buffer, so writing first cannot deadlock.
     */
    public static Endpoint exchange(Socket socket, Endpoint local, Duration timeout) throws IOException {
        socket.setSoTimeout(timeoutMillis(timeout));
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        out.write(local.toBytes());
        out.flush();
        byte[] remote = new byte[Endpoint.BYTES];
        new DataInputStream(socket.getInputStream()).readFully(remote);
        return Endpoint.fromBytes(remote);
    }

    private static int timeoutMillis(Duration timeout) {
        long millis = timeout.toMillis();
        if (millis <= 0) {
            throw new IllegalArgumentException("the timeout must be positive: " + timeout);
        }
        return (int) Math.min(Integer.MAX_VALUE, millis);
    }
}
