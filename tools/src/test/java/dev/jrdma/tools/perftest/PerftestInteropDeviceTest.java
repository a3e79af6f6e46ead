// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.TestDevice;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * jrdma's protocol side against the real perftest binaries (Debian 6.06) on a Soft-RoCE device.
 * Only the passive perftest servers can be driven without an RDMA data path: the write/read/atomic
 * BW servers and the read/atomic latency servers move their QP to RTS with our keys and then only
 * talk TCP. A jrdma client that runs the session with no-op runs must take them through to a clean
 * exit, and the BW servers must print the report jrdma sent - as perftest prints a perftest client's.
 *
 * <p>Device: TestDevice ($JRDMA_TEST_DEVICE or rxe0), GID index 1 (the VM's IPv4-mapped RoCE v2 GID).
 */
@DeviceTest
class PerftestInteropDeviceTest {
    private static final String DEVICE = TestDevice.name();
    private static final BwReportData REPORT = new BwReportData(65_536, 200, 1234.56, 987.65, 0.015625);

    @ParameterizedTest
    @EnumSource(value = TestKind.class, names = {"WRITE_BW", "READ_BW", "ATOMIC_BW", "READ_LAT", "ATOMIC_LAT"})
    void jrdmaClientTakesAPerftestServerThroughTheWholeSession(TestKind kind) throws Exception {
        byte[] gid = HexFormat.of().parseHex(Files.readString(
                Path.of("/sys/class/infiniband", DEVICE, "ports/1/gids/1")).strip().replace(":", ""));
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path out = Files.createTempFile("perftest-" + kind.command(), ".out");
        Process server = new ProcessBuilder("/usr/bin/" + kind.perftestBinary(), "-d", DEVICE, "-x", "1",
                "-p", Integer.toString(port), "-n", "200")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            PeerInfo mine = new PeerInfo(0, 16, 0x123, 0x4567, 0x1111, 0x7f00_0000_1000L, gid, 0);
            try (PerftestChannel ch = connectWithRetry(port)) {
                PerftestSession.Preamble pre = PerftestSession.preamble(ch, 4096, 64, 3);
                assertEquals("6.06", pre.peerVersion());
                List<PeerInfo> remote = PerftestSession.run(ch, kind, List.of(mine), 1, new PerftestSession.Device() {
                    @Override
                    public void connect(List<PeerInfo> r) {
                        assertTrue(r.get(0).hasGid());
                    }

                    @Override
                    public void run(int index) {
                    }

                    @Override
                    public BwReportData bandwidthReport() {
                        return REPORT;
                    }

                    @Override
                    public void remoteBandwidthReport(BwReportData r) {
                    }
                });
                assertTrue(remote.get(0).qpn() > 0);
            }
            assertTrue(server.waitFor(120, TimeUnit.SECONDS), "perftest server did not exit");
            String printed = Files.readString(out, StandardCharsets.US_ASCII);
            assertEquals(0, server.exitValue(), printed);
            String remoteLine = PerftestFormat.address(false, mine, kind.verb()).lines().findFirst().orElseThrow();
            assertTrue(printed.contains(remoteLine + "\n"), remoteLine + " not in:\n" + printed);
            if (kind.bandwidth()) {
                assertTrue(printed.contains(PerftestFormat.bandwidthRow(REPORT, false)), printed);
            }
        } finally {
            server.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }

    private static PerftestChannel connectWithRetry(int port) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return PerftestChannel.connect("127.0.0.1", port, Duration.ofSeconds(60));
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }
}
