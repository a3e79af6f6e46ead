// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Replays captured perftest 6.06 sessions (golden/*.wire.txt, Debian perftest client and server
 * in the Soft-RoCE VM) against {@link PerftestChannel} driven by {@link PerftestSchedule}: a fake
 * peer plays the recorded side message by message in perftest's lock-step order, and everything
 * jrdma sends must equal, byte for byte, what the other perftest sent in the capture.
 */
class GoldenReplayTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final ExecutorService POOL = Executors.newCachedThreadPool();
    private static final int PREAMBLE = 16 + 4 + 4 + 2;

    @AfterAll
    static void stop() {
        POOL.shutdownNow();
    }

    @ParameterizedTest(name = "{0} jrdma as {2}")
    @CsvSource({
        "ib_send_lat, SEND_LAT, client, 1", "ib_send_lat, SEND_LAT, server, 1",
        "ib_send_lat-a, SEND_LAT, client, 23", "ib_send_lat-a, SEND_LAT, server, 23",
        "ib_write_lat, WRITE_LAT, client, 1", "ib_write_lat, WRITE_LAT, server, 1",
        "ib_read_lat, READ_LAT, client, 1", "ib_read_lat, READ_LAT, server, 1",
        "ib_atomic_lat, ATOMIC_LAT, client, 1", "ib_atomic_lat, ATOMIC_LAT, server, 1",
        "ib_send_bw, SEND_BW, client, 1", "ib_send_bw, SEND_BW, server, 1",
        "ib_read_bw, READ_BW, client, 1", "ib_read_bw, READ_BW, server, 1",
        "ib_atomic_bw, ATOMIC_BW, client, 1", "ib_atomic_bw, ATOMIC_BW, server, 1",
        "ib_write_bw-a, WRITE_BW, client, 23", "ib_write_bw-a, WRITE_BW, server, 23",
        // -c UD: the RC order; the -a sweep ends at the 1024-byte MTU (10 sizes).
        "ib_send_lat-c-UD, SEND_LAT, client, 1", "ib_send_lat-c-UD, SEND_LAT, server, 1",
        "ib_send_bw-c-UD, SEND_BW, client, 1", "ib_send_bw-c-UD, SEND_BW, server, 1",
        "ib_send_lat-c-UD-a, SEND_LAT, client, 10", "ib_send_lat-c-UD-a, SEND_LAT, server, 10",
        "ib_send_bw-c-UD-a, SEND_BW, client, 10", "ib_send_bw-c-UD-a, SEND_BW, server, 10",
    })
    void replay(String capture, TestKind kind, String role, int sizes) throws Exception {
        replay(capture, kind, role, sizes, PerftestSchedule.Options.DEFAULT);
    }

    @ParameterizedTest(name = "{0} jrdma as {2}")
    @CsvSource({
        "ib_send_bw-b, SEND_BW, client, 1, b", "ib_send_bw-b, SEND_BW, server, 1, b",
        "ib_write_bw-b, WRITE_BW, client, 1, b", "ib_write_bw-b, WRITE_BW, server, 1, b",
        "ib_read_bw-b, READ_BW, client, 1, b", "ib_read_bw-b, READ_BW, server, 1, b",
        "ib_atomic_bw-b, ATOMIC_BW, client, 1, b", "ib_atomic_bw-b, ATOMIC_BW, server, 1, b",
        "ib_write_bw-b-a, WRITE_BW, client, 23, b", "ib_write_bw-b-a, WRITE_BW, server, 23, b",
        "ib_send_bw-b-D, SEND_BW, client, 1, bD", "ib_send_bw-b-D, SEND_BW, server, 1, bD",
        "ib_send_lat-D, SEND_LAT, client, 1, D", "ib_send_lat-D, SEND_LAT, server, 1, D",
        "ib_write_lat-D, WRITE_LAT, client, 1, D", "ib_write_lat-D, WRITE_LAT, server, 1, D",
        "ib_read_lat-D, READ_LAT, client, 1, D", "ib_read_lat-D, READ_LAT, server, 1, D",
        "ib_atomic_lat-D, ATOMIC_LAT, client, 1, D", "ib_atomic_lat-D, ATOMIC_LAT, server, 1, D",
        "ib_send_bw-D, SEND_BW, client, 1, D", "ib_send_bw-D, SEND_BW, server, 1, D",
        "ib_write_bw-D, WRITE_BW, client, 1, D", "ib_write_bw-D, WRITE_BW, server, 1, D",
        "ib_read_bw-D, READ_BW, client, 1, D", "ib_read_bw-D, READ_BW, server, 1, D",
    })
    void replayWithOptions(String capture, TestKind kind, String role, int sizes, String flags) throws Exception {
        replay(capture, kind, role, sizes,
                new PerftestSchedule.Options(flags.contains("b"), flags.contains("D"), false));
    }

    private void replay(String capture, TestKind kind, String role, int sizes, PerftestSchedule.Options options)
            throws Exception {
        boolean jrdmaIsClient = role.equals("client");
        byte[][] wire = Golden.wire(capture);
        byte[] ours = wire[jrdmaIsClient ? 0 : 1];
        byte[] theirs = wire[jrdmaIsClient ? 1 : 0];
        List<PerftestSchedule.Step> steps = PerftestSchedule.of(kind, jrdmaIsClient, sizes, options);
        List<Integer> messages = messageSizes(steps);

        // What jrdma's side says, taken from the capture of the perftest it replaces.
        ByteBuffer o = ByteBuffer.wrap(ours);
        String version = PerftestVersion.decode(Arrays.copyOfRange(ours, 0, 16));
        int page = o.getInt(16);
        int line = o.getInt(20);
        int mtu = ours[24] - '0';
        PeerInfo keys = PeerInfo.parse(Arrays.copyOfRange(ours, PREAMBLE, PREAMBLE + 108), true);
        PeerInfo peerKeys = PeerInfo.parse(Arrays.copyOfRange(theirs, PREAMBLE, PREAMBLE + 108), true);

        try (PerftestListener listener = jrdmaIsClient ? null
                : PerftestChannel.listen(new InetSocketAddress("127.0.0.1", 0))) {
            int port = jrdmaIsClient ? 0 : listener.port();
            FakePerftest fake = new FakePerftest(!jrdmaIsClient, theirs, messages);
            java.net.ServerSocket fakeServer = null;
            Future<byte[]> peer;
            if (jrdmaIsClient) {
                fakeServer = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                java.net.ServerSocket ss = fakeServer;
                peer = POOL.submit(() -> {
                    try (Socket s = ss.accept()) {
                        return fake.play(s);
                    }
                });
                port = fakeServer.getLocalPort();
            } else {
                int p = port;
                peer = POOL.submit(() -> {
                    try (Socket s = new Socket("127.0.0.1", p)) {
                        return fake.play(s);
                    }
                });
            }
            try (PerftestChannel ch = jrdmaIsClient ? PerftestChannel.connect("127.0.0.1", port, T) : listener.accept(T)) {
                PerftestSession.Preamble pre = PerftestSession.preamble(ch, page, line, mtu);
                assertEquals(version, pre.peerVersion());
                assertEquals(new PerftestChannel.SystemData(4096, 64), pre.systemData());
                assertEquals(3, pre.mtuEnum());
                List<Integer> reportAt = reportOffsets(steps);
                List<Integer> runs = new ArrayList<>();
                List<BwReportData> remoteReports = new ArrayList<>();
                List<PeerInfo> remote = PerftestSession.run(ch, kind, List.of(keys), sizes, options, new PerftestSession.Device() {
                    @Override
                    public void connect(List<PeerInfo> r) {
                        assertEquals(List.of(peerKeys), r);
                    }

                    @Override
                    public void run(int index) {
                        runs.add(index);
                    }

                    @Override
                    public BwReportData bandwidthReport() {
                        return decodeReport(ours, reportAt.get(remoteReports.size()));
                    }

                    @Override
                    public void remoteBandwidthReport(BwReportData r) {
                        remoteReports.add(r);
                    }
                });
                assertEquals(List.of(peerKeys), remote);
                // Both sides run in -b; otherwise only the client of read/atomic lat and write/read/atomic BW.
                int expectedRuns = jrdmaIsClient || options.bidirectional() || kind == TestKind.SEND_LAT
                        || kind == TestKind.SEND_BW || kind == TestKind.WRITE_LAT ? (kind.verb() == Verb.ATOMIC ? 1 : sizes) : 0;
                assertEquals(expectedRuns, runs.size());
                assertEquals(reportAt.size(), remoteReports.size());
                for (int i = 0; i < reportAt.size(); i++) {
                    // (A passive server's record is perftest's uninitialised stack memory: compared as bytes only.)
                    assertEquals(decodeReport(theirs, reportAt.get(i)), remoteReports.get(i));
                }
                if (options.bidirectional() && !reportAt.isEmpty()) {
                    // -b: both records are real results of the same size and iteration count.
                    assertEquals(decodeReport(ours, reportAt.get(0)).size(), remoteReports.get(0).size());
                    assertEquals(decodeReport(ours, reportAt.get(0)).iters(), remoteReports.get(0).iters());
                }
            } finally {
                byte[] sent = peer.get();
                assertEquals(HexFormat.of().formatHex(ours), HexFormat.of().formatHex(sent),
                        "jrdma's bytes differ from perftest's");
                if (fakeServer != null) {
                    fakeServer.close();
                }
            }
        }
    }

    /** Byte offset of each BW report in either direction's stream. */
    private static List<Integer> reportOffsets(List<PerftestSchedule.Step> steps) {
        List<Integer> at = new ArrayList<>();
        int offset = PREAMBLE;
        for (PerftestSchedule.Step s : steps) {
            switch (s) {
                case KEYS, SYNC -> offset += 108;
                case REPORT -> {
                    at.add(offset);
                    offset += 40;
                }
                default -> { }
            }
        }
        return at;
    }

    private static BwReportData decodeReport(byte[] stream, int at) {
        ByteBuffer b = ByteBuffer.wrap(stream, at, 40);
        return new BwReportData(b.getLong(), b.getLong(), b.getDouble(), b.getDouble(), b.getDouble());
    }

    /** Message sizes of one session in order; negative = written by both, never read ("done"). */
    static List<Integer> messageSizes(List<PerftestSchedule.Step> steps) {
        List<Integer> m = new ArrayList<>(List.of(16, 4, 4, 2));
        for (PerftestSchedule.Step s : steps) {
            switch (s) {
                case KEYS, SYNC -> m.add(108);
                case REPORT -> m.addAll(List.of(8, 8, 8, 8, 8));
                case FINISH -> {
                    m.add(108);
                    m.add(-5);
                }
                default -> { }
            }
        }
        return m;
    }

    /** Plays one recorded perftest side in its lock-step order; returns every byte jrdma sent. */
    private record FakePerftest(boolean client, byte[] script, List<Integer> messages) {
        byte[] play(Socket s) throws Exception {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            int at = 0;
            for (int size : messages) {
                int n = Math.abs(size);
                byte[] mine = Arrays.copyOfRange(script, at, at + n);
                at += n;
                if (size < 0) {
                    out.write(mine);
                    out.flush();
                    continue;
                }
                if (client) {
                    out.write(mine);
                    out.flush();
                    received.writeBytes(in.readNBytes(n));
                } else {
                    received.writeBytes(in.readNBytes(n));
                    out.write(mine);
                    out.flush();
                }
            }
            assertEquals(script.length, at, "the schedule must consume the whole capture");
            // "done" and EOF; a reset after the last byte is how a peer with unread data closes.
            try {
                byte[] buf = new byte[256];
                for (int n; (n = in.read(buf)) > 0; ) {
                    received.write(buf, 0, n);
                }
            } catch (java.net.SocketException reset) {
                // fine: compare what arrived
            }
            return received.toByteArray();
        }
    }

    @org.junit.jupiter.api.Test
    void capturesAreCompleteAndDecodeAsExpected() {
        byte[][] w = Golden.wire("ib_read_bw");
        BwReportData client = decodeReport(w[0], PREAMBLE + 4 * 108);
        assertEquals(new BwReportData(65536, 200, client.bwPeak(), client.bwAvg(), client.msgRate()), client);
        // The printed row of the capture is these numbers.
        assertEquals(" 65536      200              55.45              43.04  \t\t   0.000689",
                PerftestFormat.bandwidthRow(client, false).stripTrailing());
        assertArrayEquals("done\0".getBytes(), Arrays.copyOfRange(w[0], w[0].length - 5, w[0].length));
    }
}
