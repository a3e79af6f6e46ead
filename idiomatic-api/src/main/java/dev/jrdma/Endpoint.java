// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.nio.ByteBuffer;

/**
 * What a peer needs to connect a queue pair to this one: the value two sides exchange
 * out of band before {@link QueuePair#connect(Endpoint)}. From {@link QueuePair#localEndpoint()}.
 *
 * @param qpn the queue pair number (24 bits)
 * @param psn the initial packet sequence number the QP sends with (24 bits)
 * @param lid the port's LID (InfiniBand; 0 on RoCE)
 * @param gid the GID the QP sends from (RoCE: the address packets are routed by)
 * @param mtu the port's active MTU; the path uses the smaller of both sides'
 */
public record Endpoint(int qpn, int psn, int lid, Gid gid, Mtu mtu) {
    /** Validates the 24-bit fields. */
    public Endpoint {
        if ((qpn & ~0xffffff) != 0 || (psn & ~0xffffff) != 0) {
            throw new IllegalArgumentException("qpn and psn are 24-bit values: qpn 0x" + Integer.toHexString(qpn)
                    + ", psn 0x" + Integer.toHexString(psn));
        }
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("lid is a 16-bit value, not " + lid);
        }
    }

    /** Size of {@link #toBytes()}: version, MTU, LID, QPN, PSN, GID. */
    public static final int BYTES = 28;
    private static final byte VERSION = 1;

    /**
     * A fixed 28-byte big-endian encoding for out-of-band exchange: version (1), MTU enum,
     * LID (2), QPN (4), PSN (4), GID (16).
     *
     * @return the {@link #BYTES} bytes to send to the peer
     */
    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.put(VERSION).put((byte) mtu.value()).putShort((short) lid).putInt(qpn).putInt(psn)
                .putLong(gid.high()).putLong(gid.low());
        return b.array();
    }

    /**
     * Decodes {@link #toBytes()}.
     *
     * @param bytes what the peer sent
     * @return the peer's endpoint
     * @throws IllegalArgumentException for anything but a {@link #toBytes()} encoding
     */
    public static Endpoint fromBytes(byte[] bytes) {
        if (bytes.length != BYTES || bytes[0] != VERSION) {
            throw new IllegalArgumentException("not an encoded endpoint (" + bytes.length + " bytes, version "
                    + (bytes.length > 0 ? bytes[0] : -1) + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, 1, BYTES - 1);
        Mtu mtu = Mtu.of(b.get());
        int lid = Short.toUnsignedInt(b.getShort());
        int qpn = b.getInt();
        int psn = b.getInt();
        return new Endpoint(qpn, psn, lid, new Gid(b.getLong(), b.getLong()), mtu);
    }
}
