// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.RdmaTimeoutException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PerftestChannelTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final byte[] GID = HexFormat.of().parseHex("fe800000000000000000000000000001");
    private static final PeerInfo KEYS = new PeerInfo(0, 16, 0x11, 0xcdfed9, 0x409, 0x55daec22b000L, GID, 0);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    private static ServerSocket loopbackListener() throws IOException {
        return new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
    }

    /** A loopback port nothing listens on (any more): a connect to it is refused. */
    private static int closedPort() throws IOException {
        try (ServerSocket ss = loopbackListener()) {
            return ss.getLocalPort();
        }
    }

    /** What a scripted peer does with the connection it accepted; the socket is closed after it. */
    private interface PeerScript {
        void run(Socket s) throws Exception;
    }

    private Future<?> scriptedPeer(ServerSocket ss, PeerScript script) {
        return pool.submit(() -> {
            try (Socket s = ss.accept()) {
                script.run(s);
            }
            return null;
        });
    }

    /** What a test does on a channel connected to a peer. */
    private interface ChannelCheck {
        void run(PerftestChannel ch) throws Exception;
    }

    /** Runs a check, within 5 s, on a channel to a peer that accepts the connection and then says nothing. */
    private void withSilentPeer(Duration timeout, ChannelCheck check) throws Exception {
        try (ServerSocket ss = loopbackListener()) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return ss.accept();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }, pool);
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                try (PerftestChannel ch = PerftestChannel.connect("127.0.0.1", ss.getLocalPort(), timeout)) {
                    check.run(ch);
                }
            });
            accepted.get().close();
        }
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void fullSessionBetweenTwoJrdmaSides() throws Exception {
        PeerInfo serverKeys = KEYS;
        PeerInfo clientKeys = new PeerInfo(0, 16, 0x12, 0x5a8577, 0x56f, 0x56475680b000L, GID, 0);
        try (PerftestListener listener = PerftestChannel.listen(new InetSocketAddress("127.0.0.1", 0))) {
            int port = listener.port();
            Future<Object[]> server = pool.submit(() -> {
                try (PerftestChannel ch = listener.accept(T)) {
                    String v = ch.exchangeVersion("6.06");
                    PerftestChannel.SystemData sys = ch.exchangeSystemData(4096, 128);
                    int mtu = ch.exchangeMtu(5);
                    PeerInfo peer = ch.exchangeKeys(serverKeys);
                    ch.sync(serverKeys);
                    BwReportData rep = ch.exchangeBwReport(new BwReportData(0, 0, 0, 0, 0));
                    ch.finish(serverKeys);
                    return new Object[] {v, sys, mtu, peer, rep};
                }
            });
            BwReportData mine = new BwReportData(65536, 5000, 11_000.5, 10_000.25, 0.16);
            try (PerftestChannel ch = PerftestChannel.connect("127.0.0.1", port, T)) {
                assertTrue(ch.isClient());
                assertEquals("6.06", ch.exchangeVersion("6.06"));
                assertEquals(new PerftestChannel.SystemData(65536, 128), ch.exchangeSystemData(65536, 64));
                assertEquals(3, ch.exchangeMtu(3));
                assertEquals(serverKeys, ch.exchangeKeys(clientKeys));
                assertEquals(serverKeys, ch.sync(clientKeys));
                assertEquals(new BwReportData(0, 0, 0, 0, 0), ch.exchangeBwReport(mine));
                ch.finish(clientKeys);
            }
            Object[] s = server.get();
            assertEquals("6.06", s[0]);
            assertEquals(new PerftestChannel.SystemData(65536, 128), s[1]);
            assertEquals(3, s[2]);
            assertEquals(clientKeys, s[3]);
            assertEquals(mine, s[4]);
        }
    }

    @Test
    void mtuFromThePeerOutsideTheEnumIsIgnoredLikePerftest() throws Exception {
        byte[] reply = {'7', 0};
        assertEquals(Integer.valueOf(4), withRawServer(reply, ch -> ch.exchangeMtu(4)));
    }

    @Test
    void oldPeerIsRejected() {
        byte[] reply = PerftestVersion.encode("5.60");
        Exception e = assertThrows(Exception.class, () -> withRawServer(reply, ch -> ch.exchangeVersion("6.06")));
        assertTrue(e.getMessage().contains("older than 5.70"), e.getMessage());
    }

    @Test
    void silentPeerTimesOutWithAMessage() throws Exception {
        withSilentPeer(Duration.ofMillis(300), ch -> {
            RdmaTimeoutException e = assertThrows(RdmaTimeoutException.class, () -> ch.exchangeVersion("6.06"));
            assertTrue(e.getMessage().startsWith("version: read"), e.getMessage());
            assertTrue(e.getMessage().contains("timed out after 300 ms"), e.getMessage());
        });
    }

    /** A passive server's wait for the client's run outlasts the timeout (perftest waits forever too). */
    @Test
    void waitForThePeersRunIsNotBoundByTheTimeout() throws Exception {
        try (ServerSocket ss = loopbackListener()) {
            Future<?> peer = scriptedPeer(ss, s -> {
                byte[] m = s.getInputStream().readNBytes(PeerInfo.wireSize(true));
                Thread.sleep(1500);   // "running": five times the timeout
                s.getOutputStream().write(m);
            });
            try (PerftestChannel ch = PerftestChannel.connect("127.0.0.1", ss.getLocalPort(), Duration.ofMillis(300))) {
                ch.expectPeerRun(null);
                long start = System.nanoTime();
                assertEquals(KEYS, ch.sync(KEYS));
                assertTrue(System.nanoTime() - start >= 1_400_000_000L);
                // The mark is for one read: the next wait has the ordinary timeout again.
                Exception e = assertThrows(Exception.class, () -> ch.sync(KEYS));
                assertTrue(e instanceof PerftestProtocolException || e instanceof RdmaTimeoutException, e.toString());
                assertTrue(e.getMessage().contains("closed the connection") || e.getMessage().contains("timed out"),
                        e.getMessage());
            }
            peer.get();
        }
    }

    @Test
    void aPeerKilledDuringItsRunEndsTheWaitAtOnce() throws Exception {
        try (ServerSocket ss = loopbackListener()) {
            Future<?> peer = scriptedPeer(ss, s -> {
                s.getInputStream().readNBytes(PeerInfo.wireSize(true));
                Thread.sleep(500);
            });   // closed without answering, as the kernel does for a killed process
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                try (PerftestChannel ch = PerftestChannel.connect("127.0.0.1", ss.getLocalPort(), Duration.ofSeconds(60))) {
                    ch.expectPeerRun(null);
                    PerftestProtocolException e = assertThrows(PerftestProtocolException.class, () -> ch.sync(KEYS));
                    assertEquals("sync: peer closed the connection after 0 of 108 bytes (it ended or was killed "
                            + "before finishing its run)", e.getMessage());
                }
            });
            peer.get();
        }
    }

    @Test
    void aBoundedPeerRunTimesOutNamingTheRun() throws Exception {
        withSilentPeer(Duration.ofSeconds(60), ch -> {
            ch.expectPeerRun(Duration.ofMillis(400));
            RdmaTimeoutException e = assertThrows(RdmaTimeoutException.class, () -> ch.sync(KEYS));
            assertEquals("sync: the peer did not finish its run within 400 ms (peer stopped, or not in "
                    + "step: do both sides run the same test with the same -a, -b, -D and -q?)", e.getMessage());
        });
    }

    @Test
    void peerThatClosesMidMessageIsReported() throws Exception {
        try (ServerSocket ss = loopbackListener()) {
            Future<?> peer = scriptedPeer(ss, s -> {
                s.getInputStream().readNBytes(16);
                s.getOutputStream().write("6.0".getBytes());   // 3 of 16 bytes, then gone
            });
            try (PerftestChannel ch = PerftestChannel.connect("127.0.0.1", ss.getLocalPort(), T)) {
                PerftestProtocolException e = assertThrows(PerftestProtocolException.class, () -> ch.exchangeVersion("6.06"));
                assertEquals("version: peer closed the connection after 3 of 16 bytes", e.getMessage());
            }
            peer.get();
        }
    }

    @Test
    void acceptTimesOut() throws Exception {
        try (PerftestListener l = PerftestChannel.listen(new InetSocketAddress("127.0.0.1", 0))) {
            RdmaTimeoutException e = assertThrows(RdmaTimeoutException.class, () -> l.accept(Duration.ofMillis(200)));
            assertTrue(e.getMessage().startsWith("accept: no client connected within"), e.getMessage());
        }
    }

    @Test
    void connectionRefusedIsOneClearLine() throws Exception {
        int port = closedPort();
        PerftestProtocolException e = assertThrows(PerftestProtocolException.class,
                () -> PerftestChannel.connect("127.0.0.1", port, Duration.ofMillis(300)));
        assertTrue(e.getMessage().startsWith("connect: cannot connect to 127.0.0.1:" + port), e.getMessage());
        assertTrue(e.getMessage().endsWith("(tried for 300 ms: is the server running?)"), e.getMessage());
    }

    /** A jrdma server listens only after its warm-up: a client that comes first waits for it. */
    @Test
    void aClientWaitsForAServerThatListensLater() throws Exception {
        int port = closedPort();
        CompletableFuture<PerftestChannel> client = CompletableFuture.supplyAsync(() -> {
            try {
                return PerftestChannel.connect("127.0.0.1", port, T);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Thread.sleep(400);   // refused a few times meanwhile
        assertFalse(client.isDone(), "the client gave up on a refused connect at once");
        try (PerftestListener l = PerftestChannel.listen(new InetSocketAddress("127.0.0.1", port));
             PerftestChannel accepted = l.accept(T);
             PerftestChannel connected = client.get(T.toSeconds(), TimeUnit.SECONDS)) {
            assertTrue(connected.isClient() && !accepted.isClient());
        }
    }

    @Test
    void garbageKeysAreRejected() {
        byte[] reply = new byte[108];
        java.util.Arrays.fill(reply, (byte) 'Z');
        PeerInfo mine = new PeerInfo(0, 1, 1, 1, 1, 1, GID, 0);
        Exception e = assertThrows(PerftestProtocolException.class, () -> withRawServer(reply, ch -> ch.exchangeKeys(mine)));
        assertTrue(e.getMessage().contains("field LID"), e.getMessage());
    }

    interface Step<T> {
        T run(PerftestChannel ch) throws Exception;
    }

    /** A raw server that reads whatever the client sends first and answers with {@code reply}. */
    private <T> T withRawServer(byte[] reply, Step<T> step) throws Exception {
        try (ServerSocket ss = loopbackListener()) {
            Future<?> peer = scriptedPeer(ss, s -> {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                in.read(new byte[256]);
                out.write(reply);
                out.flush();
                in.read(new byte[256]);   // until the client closes
            });
            try (PerftestChannel ch = PerftestChannel.connect("127.0.0.1", ss.getLocalPort(), T)) {
                return step.run(ch);
            } finally {
                peer.get();
            }
        }
    }
}
