// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.RdmaTimeoutException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * -R sessions between two jrdma sides over an in-memory stand-in for perftest's rdma_cm control
 * QP (one message per SEND): the preamble, the binary key records, the zero-record barriers around
 * the rdma_cm connect, and no "done" at the end. (perftest's own -R wire could not be captured:
 * see golden/README.md.)
 */
class RdmaCmSessionTest {
    private static final ExecutorService POOL = Executors.newCachedThreadPool();
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    /** One direction's messages, and the end of a link that records what it sent. */
    private static class QueueLink implements RdmaCmLink {
        final boolean client;
        final BlockingQueue<byte[]> out;
        final BlockingQueue<byte[]> in;
        final List<byte[]> sent = Collections.synchronizedList(new ArrayList<>());
        volatile boolean closed;

        QueueLink(boolean client, BlockingQueue<byte[]> out, BlockingQueue<byte[]> in) {
            this.client = client;
            this.out = out;
            this.in = in;
        }

        @Override
        public boolean isClient() {
            return client;
        }

        @Override
        public Duration timeout() {
            return Duration.ofSeconds(5);
        }

        @Override
        public void send(String step, byte[] message) {
            sent.add(message.clone());
            out.add(message.clone());
        }

        @Override
        public byte[] receive(String step, int length) throws IOException {
            try {
                byte[] m = in.poll(timeout().toMillis(), TimeUnit.MILLISECONDS);
                if (m == null) {
                    throw new RdmaTimeoutException(timeout(), step + ": no message within "
                            + RdmaTimeoutException.plain(timeout()), null);
                }
                return m;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static final class RecordingDevice implements PerftestSession.Device {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final BwReportData report;
        final PeerInfo mine;

        RecordingDevice(BwReportData report, PeerInfo mine) {
            this.report = report;
            this.mine = mine;
        }

        @Override
        public void connect(List<PeerInfo> remote) {
            calls.add("connect");
        }

        @Override
        public List<PeerInfo> connectRdmaCm() {
            calls.add("rdma_cm");
            return List.of(mine);
        }

        @Override
        public void rdmaCmKeys(List<PeerInfo> remote) {
            calls.add("keys");
        }

        @Override
        public void run(int index) {
            calls.add("run " + index);
        }

        @Override
        public BwReportData bandwidthReport() {
            return report;
        }

        @Override
        public void remoteBandwidthReport(BwReportData remote) {
            calls.add("report " + remote.iters());
        }
    }

    private record Side(QueueLink link, RecordingDevice device, Future<List<PeerInfo>> remote) {
    }

    private static Side start(boolean client, QueueLink link, TestKind kind, PeerInfo mine, BwReportData report) {
        RecordingDevice device = new RecordingDevice(report, mine);
        Future<List<PeerInfo>> f = POOL.submit(() -> {
            PerftestChannel ch = PerftestChannel.overRdmaCm(link, 1);
            PerftestSession.Preamble pre = PerftestSession.preamble(ch, 4096, 64, 3);
            assertEquals("6.06", pre.peerVersion());
            // The records given to run are placeholders until connectRdmaCm returns the real ones.
            return PerftestSession.run(ch, kind, List.of(PeerInfo.zero(mine.hasGid())), 1, new PerftestSchedule.Options(false, false, true), device);
        });
        return new Side(link, device, f);
    }

    @Test
    void writeBwOverRdmaCm() throws Exception {
        BlockingQueue<byte[]> c2s = new LinkedBlockingQueue<>();
        BlockingQueue<byte[]> s2c = new LinkedBlockingQueue<>();
        PeerInfo clientKeys = new PeerInfo(0, 16, 0x35, 0x58677b, 0x1234, 0x7f0000001000L, GID, 0);
        PeerInfo serverKeys = new PeerInfo(0, 16, 0x36, 0x46e705, 0x5678, 0x7f0000002000L, GID, 0);
        Side client = start(true, new QueueLink(true, c2s, s2c), TestKind.WRITE_BW, clientKeys,
                new BwReportData(65536, 200, 53.7, 49.6, 0.000794));
        Side server = start(false, new QueueLink(false, s2c, c2s), TestKind.WRITE_BW, serverKeys,
                new BwReportData(0, 0, 0, 0, 0));
        assertEquals(List.of(serverKeys), client.remote().get(10, TimeUnit.SECONDS));
        assertEquals(List.of(clientKeys), server.remote().get(10, TimeUnit.SECONDS));

        // No CONNECT: rdma_cm connects the QPs between the two zero syncs; each key exchange
        // hands the peer's records to the device.
        assertEquals(List.of("rdma_cm", "keys", "keys", "run 0", "report 0"), client.device().calls);
        assertEquals(List.of("rdma_cm", "keys", "keys", "report 200"), server.device().calls);

        List<Integer> sizes = client.link().sent.stream().map(m -> m.length).toList();
        // version, page size, cache line, MTU; zero sync x2; keys x2; sync; sync; report x5; final sync.
        assertEquals(List.of(16, 4, 4, 2, 56, 56, 56, 56, 56, 56, 8, 8, 8, 8, 8, 56), sizes);
        assertEquals(sizes, server.link().sent.stream().map(m -> m.length).toList());
        assertArrayEquals(new byte[56], client.link().sent.get(4), "the barrier before rdma_cm connect is all zero");
        assertArrayEquals(new byte[56], server.link().sent.get(5), "and the one after it");
        assertArrayEquals(clientKeys.formatRdmaCm(1), client.link().sent.get(6));
        assertArrayEquals(new byte[] {'3', 0}, client.link().sent.get(3), "the MTU message is the same as over TCP");
        assertTrue(client.link().closed && server.link().closed);
        assertTrue(client.link().sent.stream().noneMatch(m -> new String(m, java.nio.charset.StandardCharsets.US_ASCII)
                .startsWith("done")), "no \"done\" over rdma_cm");
    }

    @Test
    void sendLatOverRdmaCm() throws Exception {
        BlockingQueue<byte[]> c2s = new LinkedBlockingQueue<>();
        BlockingQueue<byte[]> s2c = new LinkedBlockingQueue<>();
        PeerInfo keys = new PeerInfo(0, 0, 0x13, 0x1, 0x0, 0x0, GID, 0);
        Side client = start(true, new QueueLink(true, c2s, s2c), TestKind.SEND_LAT, keys, null);
        Side server = start(false, new QueueLink(false, s2c, c2s), TestKind.SEND_LAT, keys, null);
        client.remote().get(10, TimeUnit.SECONDS);
        server.remote().get(10, TimeUnit.SECONDS);
        assertEquals(List.of("rdma_cm", "keys", "keys", "run 0"), client.device().calls);
        assertEquals(List.of(16, 4, 4, 2, 56, 56, 56, 56, 56, 56, 56),
                client.link().sent.stream().map(m -> m.length).toList());
    }

    @Test
    void aPeerThatStopsAnsweringTimesOutNamingTheStep() {
        BlockingQueue<byte[]> silent = new LinkedBlockingQueue<>();
        QueueLink link = new QueueLink(true, new LinkedBlockingQueue<>(), silent) {
            @Override
            public Duration timeout() {
                return Duration.ofMillis(200);
            }
        };
        PerftestChannel ch = PerftestChannel.overRdmaCm(link, 1);
        RdmaTimeoutException e = assertThrows(RdmaTimeoutException.class,
                () -> PerftestSession.preamble(ch, 4096, 64, 3));
        assertTrue(e.getMessage().startsWith("version"), e.getMessage());
    }

    @Test
    void wrongSizedMessagesAndMismatchedOptionsAreRejected() throws Exception {
        BlockingQueue<byte[]> in = new LinkedBlockingQueue<>();
        in.add(new byte[15]);
        PerftestChannel ch = PerftestChannel.overRdmaCm(new QueueLink(false, new LinkedBlockingQueue<>(), in), 1);
        PerftestProtocolException e = assertThrows(PerftestProtocolException.class,
                () -> ch.exchangeVersion(PerftestVersion.ANNOUNCED));
        assertTrue(e.getMessage().contains("expected a 16-byte message, got 15"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PerftestSession.run(ch, TestKind.SEND_LAT,
                List.of(PeerInfo.zero(true)), 1, PerftestSchedule.Options.DEFAULT, new RecordingDevice(null, PeerInfo.zero(true))));
    }
}
