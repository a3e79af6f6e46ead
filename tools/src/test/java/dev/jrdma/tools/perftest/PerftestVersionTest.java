// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PerftestVersionTest {
    @Test
    void encodesLikePerftest() throws Exception {
        byte[] captured = Arrays.copyOf(Golden.wire("ib_send_lat")[0], 16);
        assertArrayEquals(captured, PerftestVersion.encode("6.06"));
        assertEquals("6.06", PerftestVersion.decode(captured));
    }

    @Test
    void announcedVersionSkipsTheBinaryNegotiationOfNewerPerftest() {
        double v = PerftestVersion.atof(PerftestVersion.ANNOUNCED);
        assertTrue(v >= PerftestVersion.MINIMUM && v < 6.28, "must stay in [5.70, 6.28)");
    }

    @Test
    void rejectsOldOrGarbage() {
        assertDoesNotThrow(() -> PerftestVersion.requireCompatible("5.70"));
        assertDoesNotThrow(() -> PerftestVersion.requireCompatible("6.29"));
        PerftestProtocolException e = assertThrows(PerftestProtocolException.class,
                () -> PerftestVersion.requireCompatible("5.60"));
        assertTrue(e.getMessage().contains("older than 5.70"));
        assertThrows(PerftestProtocolException.class, () -> PerftestVersion.decode(new byte[15]));
        byte[] junk = PerftestVersion.encode("abc");
        assertThrows(PerftestProtocolException.class, () -> PerftestVersion.decode(junk));
        byte[] binary = new byte[16];
        binary[0] = (byte) 0x90;
        assertThrows(PerftestProtocolException.class, () -> PerftestVersion.decode(binary));
        assertThrows(IllegalArgumentException.class, () -> PerftestVersion.encode("0123456789abcdef"));
    }

    @Test
    void fuzzDecode() {
        java.util.Random rnd = new java.util.Random(606);
        for (int i = 0; i < 20_000; i++) {
            byte[] msg = PerftestVersion.encode("6.06");
            if (rnd.nextBoolean()) {
                rnd.nextBytes(msg);
            } else {
                msg[rnd.nextInt(16)] = (byte) rnd.nextInt(256);
            }
            try {
                PerftestVersion.requireCompatible(PerftestVersion.decode(msg));
            } catch (PerftestProtocolException expected) {
                // the only failure allowed
            }
        }
    }

    @Test
    void atofTakesTheLeadingNumber() {
        assertEquals(6.06, PerftestVersion.atof("6.06"));
        assertEquals(5.7, PerftestVersion.atof(" 5.7-beta"));
        assertTrue(Double.isNaN(PerftestVersion.atof("v6")));
    }
}
