// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

/**
 * A peer's request to connect, from {@link CmId#awaitConnectRequest}: a new id to
 * {@link CmId#accept} or {@link CmId#reject}, and the private data the peer sent (padded with
 * zeros to the transport's size, 56 bytes on InfiniBand and RoCE).
 *
 * @param id          the id of the new connection
 * @param privateData the peer's private data
 */
public record ConnectionRequest(CmId id, byte[] privateData) {
    /** Copies the private data. */
    public ConnectionRequest {
        privateData = privateData.clone();
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
