// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.nio.charset.StandardCharsets;

/**
 * The version string of perftest's first out-of-band message: 16 bytes, ASCII, NUL-padded
 * ({@code MAX_VERSION} in perftest_parameters.h), compared by perftest with {@code atof()}.
 */
public final class PerftestVersion {
    /** Wire size of the version message. */
    public static final int SIZE = 16;

    /**
     * What jrdma announces. perftest 6.06 is the version Debian ships; any value in
     * [5.70, 6.28) keeps a newer perftest (6.28+) from sending its binary parameter-negotiation
     * struct ({@code negotiate_params()} returns at once when {@code atof(rem_version) < 6.28}),
     * and 6.06 peers use 8-byte iteration counts in the BW report (>= 5.33) and the 2-byte MTU
     * message (>= 5.31).
     */
    public static final String ANNOUNCED = "6.06";

    /** perftest refuses peers older than this ({@code check_version_compatibility}). */
    public static final double MINIMUM = 5.70;

    private PerftestVersion() {
    }

    /** The 16-byte message for a version string (at most 15 ASCII characters). */
    public static byte[] encode(String version) {
        byte[] text = version.getBytes(StandardCharsets.US_ASCII);
        if (text.length > SIZE - 1) {
            throw new IllegalArgumentException("version string longer than 15 bytes: " + version);
        }
        byte[] msg = new byte[SIZE];
        System.arraycopy(text, 0, msg, 0, text.length);
        return msg;
    }

    /**
     * The version string in a received message: the bytes up to the first NUL.
     *
     * @throws PerftestProtocolException when it is not printable ASCII or not a version number
     */
    public static String decode(byte[] msg) throws PerftestProtocolException {
        if (msg == null || msg.length != SIZE) {
            throw new PerftestProtocolException("version: expected " + SIZE + " bytes, got "
                    + (msg == null ? 0 : msg.length));
        }
        int end = 0;
        while (end < SIZE && msg[end] != 0) {
            if (msg[end] < 0x20 || msg[end] > 0x7e) {
                throw new PerftestProtocolException("version: non-printable byte 0x"
                        + Integer.toHexString(msg[end] & 0xff) + " at " + end + " (is the peer perftest?)");
            }
            end++;
        }
        String v = new String(msg, 0, end, StandardCharsets.US_ASCII);
        if (Double.isNaN(atof(v))) {
            throw new PerftestProtocolException("version: '" + v + "' is not a version number (is the peer perftest?)");
        }
        return v;
    }

    /**
     * C's {@code atof} as perftest uses it: the longest leading decimal number; NaN when there is none
     * (atof would give 0, which perftest then rejects as too old).
     */
    public static double atof(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        int start = i;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        int digits = 0;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
            digits++;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return Double.NaN;
        }
        return Double.parseDouble(s.substring(start, i));
    }

    /**
     * Checks a peer's version the way perftest does ({@code atof(rem_version) < 5.70}, in double).
     *
     * @throws PerftestProtocolException when the peer is older than 5.70
     */
    public static void requireCompatible(String peerVersion) throws PerftestProtocolException {
        double v = atof(peerVersion);
        if (Double.isNaN(v) || v < MINIMUM) {
            throw new PerftestProtocolException("version: peer runs perftest " + peerVersion
                    + ", which is older than 5.70 and not compatible");
        }
    }
}
