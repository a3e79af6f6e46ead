// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The -R key record: perftest's struct pingpong_dest, big-endian, sent raw over the rdma_cm control QP. */
class RdmaCmRecordTest {
    private static final byte[] GID = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");

    @Test
    void layoutIsTheX8664StructWithBigEndianFields() {
        PeerInfo p = new PeerInfo(0x12, 0x10, 0x11, 0xabcdef, 0x56f, 0x56475680b000L, GID, 7);
        byte[] b = p.formatRdmaCm(1);
        assertEquals(56, b.length);
        assertEquals("00000012" + "00000010" + "00000011" + "00abcdef" + "0000056f" + "00000000"
                + "000056475680b000" + "00000000000000000000ffff0ac80001" + "00000007" + "00000001",
                HexFormat.of().formatHex(b));
    }

    @Test
    void parseKeepsWhatPerftestReadsAndIgnoresSrqnAndGidIndex() throws Exception {
        PeerInfo p = new PeerInfo(0, 1, 0x11, 0xcdfed9, 0x409, 0x55daec22b000L, GID, 9);
        PeerInfo back = PeerInfo.parseRdmaCm(p.formatRdmaCm(3), true);
        assertEquals(new PeerInfo(0, 1, 0x11, 0xcdfed9, 0x409, 0x55daec22b000L, GID, 0), back);
        assertNull(PeerInfo.parseRdmaCm(p.formatRdmaCm(3), false).gid());
    }

    @Test
    void paddingIsIgnoredLikePerftestsStackGarbage() throws Exception {
        byte[] b = PeerInfo.zero(true).formatRdmaCm(0);
        b[20] = (byte) 0xde;
        b[23] = (byte) 0xad;
        assertEquals(PeerInfo.zero(true), PeerInfo.parseRdmaCm(b, true));
    }

    @Test
    void badRecordsAreProtocolErrorsNotCrashes() {
        assertThrows(PerftestProtocolException.class, () -> PeerInfo.parseRdmaCm(new byte[55], true));
        byte[] qpnTooLarge = PeerInfo.zero(true).formatRdmaCm(0);
        qpnTooLarge[8] = 1;   // QPN 0x01000000 does not fit 24 bits
        PerftestProtocolException e = assertThrows(PerftestProtocolException.class,
                () -> PeerInfo.parseRdmaCm(qpnTooLarge, true));
        assertTrue(e.getMessage().contains("QPN"), e.getMessage());
        Random random = new Random(4);
        for (int i = 0; i < 2000; i++) {
            byte[] junk = new byte[56];
            random.nextBytes(junk);
            try {
                PeerInfo.parseRdmaCm(junk, random.nextBoolean());
            } catch (PerftestProtocolException expected) {
                // fine: rejected with a message
            }
        }
    }

    @Test
    void zeroRecordIsAllZeros() {
        assertArrayEquals(new byte[56], PeerInfo.zero(true).formatRdmaCm(0));
        // The same barrier over TCP would be the text form with zero fields.
        String text = new String(PeerInfo.zero(true).format(), java.nio.charset.StandardCharsets.US_ASCII);
        assertTrue(text.startsWith("0000:0000:000000:000000:00000000:0000000000000000:00:00:"), text);
    }
}
