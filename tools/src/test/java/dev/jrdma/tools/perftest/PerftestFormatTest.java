// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * jrdma's text output against the stdout of Debian's perftest 6.06 captured in the Soft-RoCE VM
 * (golden/*.client.txt, *.server.txt), whole files where possible.
 */
class PerftestFormatTest {
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");

    private static TestInfo info(Verb verb, String atomic, boolean bw, boolean client, int tx, int rx, int cqMod,
                                 int inline) {
        return new TestInfo(verb, atomic, bw, false, client, "rxe0", 1, "IB", "RC", false, "ON", "OFF", tx, rx, 1,
                cqMod, 1024, "Ethernet", 1, inline, 128, false, false, 0);
    }

    private static PeerInfo peer(int qpn, int psn, int rkey, long vaddr) {
        return new PeerInfo(0, 128, qpn, psn, rkey, vaddr, GID, 0);
    }

    /** A latency row rebuilt from the numbers perftest printed (inf/nan included). */
    private static LatencyReport latencyRow(String printed) {
        String[] f = printed.trim().split("\\s+");
        double[] v = new double[7];
        for (int i = 0; i < 7; i++) {
            v[i] = parse(f[i + 2]);
        }
        return new LatencyReport(Long.parseLong(f[0]), Long.parseLong(f[1]), v[0], v[1], v[2], v[3], v[4], v[5], v[6],
                new double[0]);
    }

    private static BwReportData bandwidthRow(String printed) {
        String[] f = printed.trim().split("\\s+");
        return new BwReportData(Long.parseLong(f[0]), Long.parseLong(f[1]), parse(f[2]), parse(f[3]), parse(f[4]));
    }

    /** The lines after the column header line of a golden file, up to the closing dash line. */
    private static List<String> rows(List<String> golden) {
        int start = 0;
        while (!golden.get(start).startsWith(" #bytes")) {
            start++;
        }
        int end = start + 1;
        while (!golden.get(end).startsWith("---")) {
            end++;
        }
        return golden.subList(start + 1, end);
    }

    /** The 23 rows of an -a sweep, each reprinted from its numbers, are the rows perftest printed. */
    private static void assertSweepRows(String golden, UnaryOperator<String> reprint) {
        List<String> rows = rows(Golden.lines(golden));
        assertEquals(23, rows.size());
        for (String row : rows) {
            assertEquals(row + "\n", reprint.apply(row));
        }
    }

    /** The two lines of perftest's " local address" block. */
    private static String localAddressLines(List<String> golden) {
        int at = lineStarting(golden, " local address");
        return golden.get(at) + "\n" + golden.get(at + 1) + "\n";
    }

    private static int lineStarting(List<String> golden, String prefix) {
        for (int i = 0; i < golden.size(); i++) {
            if (golden.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with " + prefix);
    }

    private static double parse(String c) {
        return switch (c) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-nan" -> Double.longBitsToDouble(0xfff8_0000_0000_0000L);
            case "nan" -> Double.NaN;
            default -> Double.parseDouble(c);
        };
    }

    /** An ib_send_lat side's output after its first lines: header, addresses, the one-row table. */
    private static String sendLatencyOutput(String golden, int rx, PeerInfo local, PeerInfo remote, boolean client) {
        return PerftestFormat.header(info(Verb.SEND, null, false, client, 1, rx, 100, 0))
                + PerftestFormat.address(true, local, Verb.SEND)
                + PerftestFormat.address(false, remote, Verb.SEND)
                + PerftestFormat.latencyTableHeader(false)
                + PerftestFormat.latencyRow(latencyRow(rows(Golden.lines(golden)).get(0)))
                + PerftestFormat.LINE + "\n";
    }

    @Test
    void sendLatencyClientWholeOutput() {
        String out = sendLatencyOutput("ib_send_lat.client.txt", 512, peer(0x12, 0x5a8577, 0, 0),
                peer(0x11, 0xcdfed9, 0, 0), true);
        assertEquals(Golden.text("ib_send_lat.client.txt"), out);
    }

    @Test
    void sendLatencyServerWholeOutputWithInfAndNan() {
        String out = PerftestFormat.WAITING + sendLatencyOutput("ib_send_lat.server.txt", 100,
                peer(0x11, 0xcdfed9, 0, 0), peer(0x12, 0x5a8577, 0, 0), false);
        assertEquals(Golden.text("ib_send_lat.server.txt"), out);
    }

    @Test
    void sendLatencySweepRows() {
        assertSweepRows("ib_send_lat-a.client.txt", row -> PerftestFormat.latencyRow(latencyRow(row)));
    }

    @Test
    void writeLatencyAddressesShowRKeyAndVAddr() {
        List<String> golden = Golden.lines("ib_write_lat.client.txt");
        assertEquals(localAddressLines(golden),
                PerftestFormat.address(true, peer(0x14, 0xfcb7a6, 0x56f, 0x557e5716c000L), Verb.WRITE));
    }

    @Test
    void readBandwidthClientWholeOutput() {
        List<String> golden = Golden.lines("ib_read_bw.client.txt");
        // perftest's first line is an extra dash line it prints before the stderr warning
        // "Device not recognized to implement inline feature" (rxe); not part of the header.
        String out = PerftestFormat.LINE + "\n"
                + PerftestFormat.header(info(Verb.READ, null, true, true, 128, 1, 1, 0))
                + PerftestFormat.address(true, peer(0x1e, 0xde4996, 0xf37, 0x55dbc725e000L), Verb.READ)
                + PerftestFormat.address(false, peer(0x1d, 0x7efad4, 0xebc, 0x564bdf4ef000L), Verb.READ)
                + PerftestFormat.bandwidthTableHeader(false)
                + PerftestFormat.bandwidthRow(bandwidthRow(rows(golden).get(0)), false)
                + PerftestFormat.LINE + "\n";
        assertEquals(Golden.text("ib_read_bw.client.txt"), out);
    }

    /** --dlid: the remote line shows the LID the QP is connected to (perftest's), the local line its own. */
    @Test
    void dlidIsTheRemoteLineLid() {
        PeerInfo p = peer(0x1d, 0x7efad4, 0xebc, 0x564bdf4ef000L);
        String announced = PerftestFormat.address(false, p, Verb.READ);
        String remote = PerftestFormat.address(false, p, Verb.READ, 0x2a);
        assertEquals(announced.replace(" LID 0000 ", " LID 0x2a "), remote);   // %#04x: 0000, 0x2a
        assertTrue(remote.startsWith(" remote address: LID 0x2a QPN 0x001d PSN 0x7efad4"), remote);
        assertEquals(PerftestFormat.address(true, p, Verb.READ), PerftestFormat.address(true, p, Verb.READ, 0x2a));
        assertEquals(PerftestFormat.address(false, p, Verb.READ), PerftestFormat.address(false, p, Verb.READ, 0));
    }

    @Test
    void atomicHeaderAndAddressesHaveNoRKey() {
        List<String> golden = Golden.lines("ib_atomic_bw.client.txt");
        String header = PerftestFormat.header(info(Verb.ATOMIC, "FETCH_AND_ADD", true, true, 128, 1, 100, 0));
        assertEquals(String.join("\n", golden.subList(1, 17)) + "\n", header);
        assertEquals(localAddressLines(golden),
                PerftestFormat.address(true, peer(0x20, 0x1dd099, 0x1234, 0x1000), Verb.ATOMIC));
    }

    @Test
    void writeBandwidthSweepRowsAndServerOutput() {
        assertSweepRows("ib_write_bw-a.client.txt", row -> PerftestFormat.bandwidthRow(bandwidthRow(row), false));
        List<String> server = Golden.lines("ib_write_bw-a.server.txt");
        // -n 20 clamps the TX depth to 20 and the CQ moderation to the TX depth (force_dependecies)
        String header = PerftestFormat.header(info(Verb.WRITE, null, true, false, 20, 1, 20, 0));
        assertEquals(String.join("\n", server.subList(4, 19)) + "\n", header);
    }

    @Test
    void cStyleNumbers() {
        assertEquals("0000", PerftestFormat.altHex(0, 4));
        assertEquals("0x1a", PerftestFormat.altHex(0x1a, 4));
        assertEquals("0x0012", PerftestFormat.altHex(0x12, 6));
        assertEquals("0x5a8577", PerftestFormat.altHex(0x5a8577, 6));
        assertEquals("0x001234", PerftestFormat.altHex(0x1234, 8));
        assertEquals("0x0056475680b000", PerftestFormat.altHex(0x56475680b000L, 16));
        assertEquals("0xffffffffffffffff", PerftestFormat.altHex(-1L, 16));
        assertEquals("inf    ", PerftestFormat.fixed(Double.POSITIVE_INFINITY, 7, 2));
        assertEquals("nan    ", PerftestFormat.fixed(Double.NaN, 7, 2));
        assertEquals("0.000001", PerftestFormat.fixed(0.000001234, 7, 6));
        assertEquals("12345.68", PerftestFormat.fixed(12345.678, 7, 2));
        assertEquals("104.857600\n", PerftestFormat.single(104.8576));
    }

    @Test
    void gbitsRowsGainDecimalsBelowOneTenth() {
        assertEquals(" 2          1000           0.012000            0.010000            0.625000\n",
                PerftestFormat.bandwidthRow(new BwReportData(2, 1000, 0.012, 0.01, 0.625), true));
        assertEquals(" 65536      1000             92.50              90.25  \t\t   0.172000\n",
                PerftestFormat.bandwidthRow(new BwReportData(65536, 1000, 92.5, 90.25, 0.172), true));
    }

    @Test
    void titles() {
        assertEquals("RDMA_Write BW Test", info(Verb.WRITE, null, true, true, 1, 1, 1, 0).title());
        assertEquals("Atomic CMP_AND_SWAP Latency Test", info(Verb.ATOMIC, "CMP_AND_SWAP", false, true, 1, 1, 1, 0).title());
        TestInfo bidir = new TestInfo(Verb.SEND, null, true, true, true, "mlx5_0", 1, "IB", "RC", false, "ON", "OFF",
                128, 512, 1, 100, 4096, "IB", -1, 0, 0, false, false, 0);
        assertEquals("Send Bidirectional BW Test", bidir.title());
    }
}
