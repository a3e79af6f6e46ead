// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The control connection over loopback TCP: retries, typed messages, timeouts, socket ownership. */
class ControlConnectionTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** A port nobody listens on now (bound, then released). */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            return s.getLocalPort();
        }
    }

    @Test
    void clientStartedBeforeItsServerRetriesUntilItListens() throws Exception {
        int port = freePort();
        CompletableFuture<ControlConnection> client = CompletableFuture.supplyAsync(() -> {
            try {
                return ControlConnection.connect(new InetSocketAddress(LOOPBACK, port), TIMEOUT);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);   // the client meets "connection refused" a few times first
        try (ServerSocket listener = new ServerSocket(port, 1, LOOPBACK);
             ControlConnection server = ControlConnection.accept(listener, TIMEOUT);
             ControlConnection c = client.get(10, TimeUnit.SECONDS)) {
            RemoteMemory memory = new RemoteMemory(0x7f00_0000_1000L, 4096, 0x1234);
            server.send(memory);
            server.send(42L);
            server.send(new byte[] {1, 2, 3});
            server.send(new byte[0]);
            assertEquals(memory, c.receiveRemoteMemory());
            assertEquals(42L, c.receiveLong());
            assertArrayEquals(new byte[] {1, 2, 3}, c.receiveBytes());
            assertArrayEquals(new byte[0], c.receiveBytes());
            c.send(-1L);
            assertEquals(-1L, server.receiveLong());
            c.send(7L);
            IOException wrong = assertThrows(IOException.class, server::receiveRemoteMemory);
            assertEquals("expected a RemoteMemory message from the peer, but it sent a long message: do both sides"
                    + " send and receive in the same order?", wrong.getMessage());
            assertTrue(!listener.isClosed(), "accept leaves the server socket open");
        }
    }

    @Test
    void nobodyListeningIsATimeoutNamingTheAddress() throws Exception {
        InetSocketAddress nowhere = new InetSocketAddress(LOOPBACK, freePort());
        SocketTimeoutException e = assertThrows(SocketTimeoutException.class,
                () -> ControlConnection.connect(nowhere, Duration.ofMillis(300)));
        assertEquals("no server listening on " + nowhere + " within 300 ms", e.getMessage());
    }

    @Test
    void aSilentPeerIsATimeoutAndAClosedOneIsNamed() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, LOOPBACK);
             ControlConnection client = ControlConnection.connect(
                     new InetSocketAddress(LOOPBACK, listener.getLocalPort()), Duration.ofMillis(200));
             ControlConnection server = ControlConnection.accept(listener, TIMEOUT)) {
            closePeer(server, client);
        }
    }

    private static void closePeer(ControlConnection server, ControlConnection client) throws IOException {
        {
            SocketTimeoutException silent = assertThrows(SocketTimeoutException.class, client::receiveLong);
            assertEquals("no long message from the peer on " + client + " within 200 ms", silent.getMessage());
            assertInstanceOf(SocketTimeoutException.class, silent.getCause(), "the socket's own timeout is kept");
            assertThrows(IllegalArgumentException.class, () -> server.send(new byte[ControlConnection.MAX_BYTES + 1]));
            server.close();   // idempotent: the try-with-resources closes it again
            IOException closed = assertThrows(IOException.class, client::receiveBytes);
            assertTrue(closed.getMessage().startsWith("the peer closed control connection to"), closed.getMessage());
        }
    }

    @Test
    void oneCatchOfIOExceptionSeesEveryFailureOfTheSocketTimeoutsIncluded() throws Exception {
        // What an application writes around its control connection: one catch for the TCP side.
        String seen;
        try (ServerSocket listener = new ServerSocket(0, 1, LOOPBACK);
             ControlConnection client = ControlConnection.connect(
                     new InetSocketAddress(LOOPBACK, listener.getLocalPort()), Duration.ofMillis(100));
             ControlConnection _ = ControlConnection.accept(listener, TIMEOUT)) {
            client.receiveRemoteMemory();
            seen = "nothing";
        } catch (IOException e) {
            seen = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        assertTrue(seen.startsWith("SocketTimeoutException: no RemoteMemory message from the peer on control"
                + " connection to "), seen);
        String accepted;
        try (ServerSocket listener = new ServerSocket(0, 1, LOOPBACK)) {
            ControlConnection.accept(listener, Duration.ofMillis(100)).close();
            accepted = "a client";
        } catch (IOException e) {
            accepted = e.getMessage();
        }
        assertTrue(accepted.startsWith("no client connected on TCP port "), accepted);
    }

    @Test
    void durationsInPlainUnits() {
        assertEquals("30 s", RdmaTimeoutException.plain(Duration.ofSeconds(30)));
        assertEquals("1.5 s", RdmaTimeoutException.plain(Duration.ofMillis(1500)));
        assertEquals("250 ms", RdmaTimeoutException.plain(Duration.ofMillis(250)));
        assertEquals("40 us", RdmaTimeoutException.plain(Duration.ofNanos(40_000)));
        assertEquals("5 min", RdmaTimeoutException.plain(Duration.ofMinutes(5)));
        assertEquals("90 s", RdmaTimeoutException.plain(Duration.ofSeconds(90)));
        assertEquals("0 ns", RdmaTimeoutException.plain(Duration.ZERO));
    }
}
