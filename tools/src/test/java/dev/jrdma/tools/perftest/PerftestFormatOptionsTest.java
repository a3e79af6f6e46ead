// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** perftest's header for -b, -c UD, -D and -R, against the captured outputs. */
class PerftestFormatOptionsTest {
    private static TestInfo info(Verb verb, boolean bw, boolean duplex, boolean client, String connection, int tx,
                                 int rx, int cqMod, boolean rdmaCm, int duration) {
        return new TestInfo(verb, null, bw, duplex, client, "rxe0", 1, "IB", connection, false, "ON", "OFF", tx, rx, 1,
                cqMod, 1024, "Ethernet", 1, 0, 128, rdmaCm, false, duration);
    }

    private static void assertStartsWith(String golden, String expected) {
        String text = Golden.text(golden);
        assertTrue(text.startsWith(expected), () -> golden + " should start with\n" + expected + "\nbut is\n"
                + text.substring(0, Math.min(text.length(), expected.length() + 80)));
    }

    @Test
    void bidirectionalPrintsBothDepthsAndTheTitleSaysSo() {
        TestInfo t = info(Verb.SEND, true, true, true, "RC", 128, 200, 1, false, 0);
        assertEquals("Send Bidirectional BW Test", t.title());
        assertStartsWith("ib_send_bw-b.client.txt", PerftestFormat.header(t));
        assertStartsWith("ib_send_bw-b.server.txt", PerftestFormat.WAITING
                + PerftestFormat.header(info(Verb.SEND, true, true, false, "RC", 128, 200, 1, false, 0)));
    }

    @Test
    void udSendBwServer() {
        // CQ moderation stays 100 for UD (perftest's 8 KiB rule skips UD); the size was lowered to the MTU.
        assertStartsWith("ib_send_bw-c-UD.server.txt", PerftestFormat.WAITING
                + PerftestFormat.header(info(Verb.SEND, true, false, false, "UD", 128, 200, 100, false, 0)));
    }

    @Test
    void rdmaCmServerAnnouncesTheRdmaCmWait() {
        assertStartsWith("ib_write_bw-R.server.txt", PerftestFormat.WAITING
                + PerftestFormat.header(info(Verb.WRITE, true, false, false, "RC", 128, 1, 1, true, 0)));
        assertStartsWith("ib_send_lat-R.client.txt",
                PerftestFormat.header(info(Verb.SEND, false, false, true, "RC", 1, 100, 1, true, 0)));
    }

    @Test
    void durationHeaderIsTheIterationHeader() {
        // -D changes the table, not the header block.
        assertStartsWith("ib_send_lat-D.client.txt",
                PerftestFormat.header(info(Verb.SEND, false, false, true, "RC", 1, 512, 1, false, 3)));
    }
}
