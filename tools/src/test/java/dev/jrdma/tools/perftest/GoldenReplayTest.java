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
    })
    void replay(String capture, TestKind kind, String role, int sizes) throws Exception {
        boolean jrdmaIsClient = role.equals("client");
        byte[][] wire = Golden.wire(capture);
        byte[] ours = wire[jrdmaIsClient ? 0 : 1];
        byte[] theirs = wire[jrdmaIsClient ? 1 : 0];
        List<PerftestSchedule.Step> steps = PerftestSchedule.of(kind, jrdmaIsClient, sizes);
        List<Integer> messages = messageSizes(steps);

        // What jrdma's side says, taken from the capture of the perftest it replaces.
        ByteBuffer o = ByteBuffer.wrap(ours);
        String version = PerftestVersion.decode(Arrays.copyOfRange(ours, 0, 16));
        int page = o.getInt(16);
        int line = o.getInt(20);
        int mtu = ours[24] - '0';
        PeerInfo keys = PeerInfo.parse(Arrays.copyOfRange(ours, PREAMBLE, PREAMBLE + 108), true);
        PeerInfo peerKeys = PeerInfo.parse(Arrays.copyOfRange(theirs, PREAMBLE, PREAMBLE + 108), true);

        try (PerftestChannel.Listener listener = jrdmaIsClient ? null
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
                int reportAt = PREAMBLE + 108 * countKeyMessagesBeforeReport(steps);
                List<Integer> runs = new ArrayList<>();
                List<BwReportData> remoteReports = new ArrayList<>();
                List<PeerInfo> remote = PerftestSession.run(ch, kind, List.of(keys), sizes, new PerftestSession.Device() {
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
                        return decodeReport(ours, reportAt);
                    }

                    @Override
                    public void remoteBandwidthReport(BwReportData r) {
                        remoteReports.add(r);
                    }
                });
                assertEquals(List.of(peerKeys), remote);
                int expectedRuns = jrdmaIsClient || kind == TestKind.SEND_LAT || kind == TestKind.SEND_BW
                        || kind == TestKind.WRITE_LAT ? (kind.verb() == Verb.ATOMIC ? 1 : sizes) : 0;
                assertEquals(expectedRuns, runs.size());
                if (kind.bandwidth() && kind != TestKind.SEND_BW) {
                    assertEquals(1, remoteReports.size());
                    // The server's record is perftest's uninitialised stack memory: nothing to check.
                    if (!jrdmaIsClient) {
                        assertEquals(decodeReport(theirs, reportAt), remoteReports.get(0));
                    }
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

    private static int countKeyMessagesBeforeReport(List<PerftestSchedule.Step> steps) {
        int n = 0;
        for (PerftestSchedule.Step s : steps) {
            if (s == PerftestSchedule.Step.REPORT) {
                return n;
            }
            if (s == PerftestSchedule.Step.KEYS || s == PerftestSchedule.Step.SYNC) {
                n++;
            }
        }
        return n;
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
