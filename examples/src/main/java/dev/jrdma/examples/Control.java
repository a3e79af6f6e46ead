package dev.jrdma.examples;

import dev.jrdma.Endpoint;
import dev.jrdma.EndpointExchange;
import dev.jrdma.RemoteMemory;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/**
 * The TCP connection beside the RDMA one. Before two queue pairs can talk, each side must learn
 * the other's {@link Endpoint} (and, for one-sided operations, the {@link RemoteMemory} to
 * target) "out of band"; this connection carries that, and afterwards the small "done"
 * messages that one-sided operations need, since they leave the target's CPU uninformed.
 * Every read is bounded by the timeout.
 */
final class Control implements AutoCloseable {
    private final Socket socket;
    private final Duration timeout;
    private final DataInputStream in;
    private final DataOutputStream out;

    private Control(Socket socket, Duration timeout) throws IOException {
        this.socket = socket;
        this.timeout = timeout;
        socket.setSoTimeout((int) timeout.toMillis());
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Server side: waits (bounded) for the next client on {@code listener}. */
    static Control accept(ServerSocket listener, Duration timeout) throws IOException {
        listener.setSoTimeout((int) timeout.toMillis());
        return new Control(listener.accept(), timeout);
    }

    /** Client side: connects to the server. */
    static Control connect(String host, int port, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            return new Control(socket, timeout);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends our endpoint and returns the peer's. */
    Endpoint exchange(Endpoint local) throws IOException {
        return EndpointExchange.exchange(socket, local, timeout);
    }

    /** Sends the address, length and rkey of memory the peer may access. */
    void send(RemoteMemory memory) throws IOException {
        out.write(memory.toBytes());
        out.flush();
    }

    /** Reads what {@link #send(RemoteMemory)} sent. */
    RemoteMemory receiveRemoteMemory() throws IOException {
        byte[] bytes = new byte[RemoteMemory.BYTES];
        in.readFully(bytes);
        return RemoteMemory.fromBytes(bytes);
    }

    /** Sends a number (a count, or just "done"). */
    void send(long value) throws IOException {
        out.writeLong(value);
        out.flush();
    }

    /** Reads what {@link #send(long)} sent. */
    long receiveLong() throws IOException {
        return in.readLong();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
