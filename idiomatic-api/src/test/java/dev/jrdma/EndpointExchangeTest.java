// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EndpointExchangeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void bothSidesLearnTheOther() throws Exception {
        Endpoint server = new Endpoint(0x11, 0x123, 0, Gid.of(new byte[16]), Mtu.MTU_1024);
        Endpoint client = new Endpoint(0x22, 0x456, 7, new Gid(1, 2), Mtu.MTU_4096);
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Endpoint> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return EndpointExchange.accept(socket, server, TIMEOUT);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Endpoint learned = EndpointExchange.connect(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort()), client, TIMEOUT);
            assertEquals(server, learned);
            assertEquals(client, accepted.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void acceptTimesOut() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // A TCP step's timeout is an IOException, as the JDK's: the JDK's own type, jrdma's message.
            SocketTimeoutException e = assertThrows(SocketTimeoutException.class, () -> EndpointExchange.accept(socket,
                    new Endpoint(1, 1, 0, Gid.ZERO, Mtu.MTU_1024), Duration.ofMillis(100)));
            assertEquals("no client connected on TCP port " + socket.getLocalPort() + " within 100 ms", e.getMessage());
            assertInstanceOf(SocketTimeoutException.class, e.getCause());
        }
    }

    @Test
    void remoteMemoryRoundTripsThroughBytes() {
        RemoteMemory m = new RemoteMemory(0x7f00_1234_5000L, 4096, 0xabcd);
        assertEquals(RemoteMemory.BYTES, m.toBytes().length);
        assertEquals(m, RemoteMemory.fromBytes(m.toBytes()));
        assertThrows(IllegalArgumentException.class, () -> RemoteMemory.fromBytes(new byte[3]));
    }
}
