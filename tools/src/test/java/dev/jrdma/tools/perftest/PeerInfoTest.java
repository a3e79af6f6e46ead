// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PeerInfoTest {
    private static final byte[] ROCE_GID = HexFormat.of().parseHex("00000000000000000000ffff0ac80001");

    /** The first key message the perftest client sent in the captured ib_send_lat run. */
    private static byte[] capturedClientKeys() {
        byte[] c = Golden.wire("ib_send_lat")[0];
        return Arrays.copyOfRange(c, 26, 26 + 108);
    }

    @Test
    void formatsExactlyWhatPerftestSent() throws Exception {
        PeerInfo p = new PeerInfo(0, 1, 0x12, 0x5a8577, 0, 0x56475680b000L, ROCE_GID, 0);
        byte[] expected = capturedClientKeys();
        assertEquals("0000:0001:000012:5a8577:00000000:000056475680b000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:c8:00:01:00000000:\0",
                new String(expected, StandardCharsets.US_ASCII));
        assertArrayEquals(expected, p.format());
        assertEquals(p, PeerInfo.parse(expected, true));
    }

    @Test
    void withoutGidIs59BytesAndHasNoTrailingColon() throws Exception {
        PeerInfo p = new PeerInfo(0x1a, 0x80, 0xabcdef, 0x123456, 0xdeadbeef, 0xffff_8000_1234_5678L, null, 0x42);
        byte[] msg = p.format();
        assertEquals(59, msg.length);
        assertEquals("001a:0080:abcdef:123456:deadbeef:ffff800012345678:00000042\0",
                new String(msg, StandardCharsets.US_ASCII));
        PeerInfo back = PeerInfo.parse(msg, false);
        assertEquals(p, back);
        assertFalse(back.hasGid());
    }

    @Test
    void acceptsUppercaseHex() throws Exception {
        byte[] msg = "001A:0080:ABCDEF:123456:DEADBEEF:FFFF800012345678:00000042\0".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xabcdef, PeerInfo.parse(msg, false).qpn());
    }

    @Test
    void rejectsWithMessagesNamingTheField() {
        byte[] good = capturedClientKeys();
        assertMessage(good, 10, (byte) 'g', true, "field QPN has a non-hex byte");
        assertMessage(good, 9, (byte) '-', true, "expected ':' after field OUT_READS");
        assertMessage(good, 0, (byte) 0, true, "field LID truncated");
        assertMessage(good, 50, (byte) 'z', true, "field GID[0]");
        assertMessage(good, 98, (byte) 'x', true, "field SRQN");
        assertMessage(good, 107, (byte) 'x', true, "expected NUL");
        PerftestProtocolException e = assertThrows(PerftestProtocolException.class,
                () -> PeerInfo.parse(Arrays.copyOf(good, 59), true));
        assertTrue(e.getMessage().contains("expected 108 bytes"), e.getMessage());
        e = assertThrows(PerftestProtocolException.class, () -> PeerInfo.parse(good, false));
        assertTrue(e.getMessage().contains("do both sides use a GID"), e.getMessage());
        e = assertThrows(PerftestProtocolException.class, () -> PeerInfo.parse(null, false));
        assertTrue(e.getMessage().contains("missing"));
    }

    private static void assertMessage(byte[] good, int at, byte value, boolean gid, String expected) {
        byte[] bad = good.clone();
        bad[at] = value;
        PerftestProtocolException e = assertThrows(PerftestProtocolException.class, () -> PeerInfo.parse(bad, gid));
        assertTrue(e.getMessage().contains(expected), () -> "'" + e.getMessage() + "' should contain '" + expected + "'");
    }

    @Test
    void refusesValuesThatWouldOverflowTheFixedWidths() {
        assertThrows(IllegalArgumentException.class, () -> new PeerInfo(0x10000, 0, 0, 0, 0, 0, null, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerInfo(0, 0, 0x1000000, 0, 0, 0, null, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerInfo(0, 0, 0, -1, 0, 0, null, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerInfo(0, 0, 0, 0, 0, 0, new byte[15], 0));
    }

    @Test
    void gidIsCopiedDefensively() {
        byte[] gid = ROCE_GID.clone();
        PeerInfo p = new PeerInfo(0, 0, 1, 1, 0, 0, gid, 0);
        gid[0] = 7;
        p.gid()[1] = 7;
        assertArrayEquals(ROCE_GID, p.gid());
    }

    /**
     * 100,000 random, truncated, extended and mutated inputs: the parser either succeeds (and then
     * the result formats back to the same bytes, modulo hex case) or throws PerftestProtocolException.
     */
    @Test
    void fuzz() {
        Random rnd = new Random(0x5EED_2026L);
        byte[] withGid = capturedClientKeys();
        byte[] noGid = new PeerInfo(0, 1, 0x12, 0x5a8577, 0x1234, 0x56475680b000L, null, 0).format();
        int accepted = 0;
        for (int i = 0; i < 100_000; i++) {
            boolean gid = rnd.nextBoolean();
            byte[] base = gid ? withGid : noGid;
            byte[] input = switch (rnd.nextInt(6)) {
                case 0 -> random(rnd, rnd.nextInt(130));
                case 1 -> Arrays.copyOf(base, rnd.nextInt(base.length + 1));           // truncated
                case 2 -> Arrays.copyOf(base, base.length + 1 + rnd.nextInt(20));      // extended
                case 3 -> mutate(rnd, base, 1);
                case 4 -> mutate(rnd, base, 1 + rnd.nextInt(8));
                default -> hexNoise(rnd, base);
            };
            try {
                PeerInfo p = PeerInfo.parse(input, gid);
                accepted++;
                byte[] again = p.format();
                assertEquals(new String(input, StandardCharsets.US_ASCII).toLowerCase(),
                        new String(again, StandardCharsets.US_ASCII), "round trip");
            } catch (PerftestProtocolException expected) {
                assertFalse(expected.getMessage().isBlank());
            } catch (RuntimeException other) {
                fail("parser threw " + other + " for " + HexFormat.of().formatHex(input), other);
            }
        }
        assertTrue(accepted > 1000, "the fuzzer should also produce valid messages, got " + accepted);
    }

    private static byte[] random(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    private static byte[] mutate(Random rnd, byte[] base, int count) {
        byte[] b = base.clone();
        for (int k = 0; k < count; k++) {
            b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
        }
        return b;
    }

    /** Replaces hex digits by other hex digits (mostly valid), sometimes by ':' or NUL. */
    private static byte[] hexNoise(Random rnd, byte[] base) {
        byte[] b = base.clone();
        String alphabet = "0123456789abcdefABCDEF:\0";
        for (int k = 0; k < 4; k++) {
            int at = rnd.nextInt(b.length);
            if (b[at] != ':' && b[at] != 0) {
                b[at] = (byte) alphabet.charAt(rnd.nextInt(rnd.nextInt(10) == 0 ? alphabet.length() : 22));
            }
        }
        return b;
    }
}
