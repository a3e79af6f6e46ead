// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.nio.ByteBuffer;

/**
 * Memory of a peer that one-sided operations (RDMA READ/WRITE, atomics) target: what the
 * owner of a {@link MemoryRegion} sends to its peer, e.g. from {@link MemoryRegion#remote()}.
 *
 * @param address the remote virtual address of the first byte
 * @param length  the number of bytes
 * @param rkey    the remote key of the memory region covering them
 */
public record RemoteMemory(long address, long length, int rkey) {
    /** Validates the range. */
    public RemoteMemory {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
    }

    /**
     * {@return the sub-range {@code [offset, offset + length)} of this memory}
     *
     * @param offset from the start of this memory
     * @param length the number of bytes
     */
    public RemoteMemory slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > this.length) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + (offset + length) + ") is outside "
                    + this.length + " bytes of remote memory");
        }
        return new RemoteMemory(address + offset, length, rkey);
    }

    /** Size of {@link #toBytes()}. */
    public static final int BYTES = 20;

    /** {@return a 20-byte big-endian encoding to send to the peer: address (8), length (8), rkey (4)} */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putLong(address).putLong(length).putInt(rkey).array();
    }

    /**
     * Decodes {@link #toBytes()}.
     *
     * @param bytes what the peer sent
     * @return the peer's memory
     */
    public static RemoteMemory fromBytes(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("encoded remote memory has " + BYTES + " bytes, not " + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        return new RemoteMemory(b.getLong(), b.getLong(), b.getInt());
    }

    /** Address, length and rkey in hex, e.g. {@code 0x7f0000001000+4096 rkey 0x1234}. */
    @Override
    public String toString() {
        return "0x" + Long.toHexString(address) + "+" + length + " rkey 0x" + Integer.toHexString(rkey);
    }
}
