// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.TestDevices;
import java.net.Inet4Address;
import java.net.InetSocketAddress;

/** rdma_cm ids the device tests of this package start from. */
final class CmTestIds {
    private CmTestIds() {}

    /** An id of {@code channel} listening on an ephemeral port of {@code address}. */
    static CmId listen(CmEventChannel channel, Inet4Address address, int backlog) {
        CmId listener = channel.createId();
        listener.bind(new InetSocketAddress(address, 0));
        listener.listen(backlog);
        return listener;
    }

    /** A client id of {@code channel} with its address and route to {@code address:port} resolved. */
    static CmId resolvedClient(CmEventChannel channel, Inet4Address address, int port) {
        CmId client = channel.createId();
        client.resolveAddress(new InetSocketAddress(address, port), TestDevices.TIMEOUT);
        client.resolveRoute(TestDevices.TIMEOUT);
        return client;
    }
}
