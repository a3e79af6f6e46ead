// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.testing.TestDevice;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.time.Duration;

/** The device the device tests use ({@link TestDevice}) as an {@link RdmaDevice}, and their bounds. */
final class TestDevices {
    static final int PORT = Context.FIRST_PORT;
    /** Under TCG emulation a round trip can take milliseconds; this bounds every completion wait. */
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private TestDevices() {}

    static RdmaDevice device() {
        String name = TestDevice.name();
        return Rdma.device(name).orElseThrow(() -> new AssertionError("the kernel lists " + name
                + " but libibverbs does not: " + Rdma.devices()));
    }

    /** The entry the library picks by default: the test device's RoCE v2 IPv4 GID, or IB's first. */
    static GidEntry gid(Context context) {
        return context.defaultGid(PORT);
    }

    /** The IPv4 address of the test device's default GID: where rdma_cm tests listen and connect. */
    static Inet4Address ipv4Address() {
        try (Context context = device().open()) {
            return gid(context).ipv4().orElseThrow(() -> new AssertionError("no IPv4 GID"));
        }
    }

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
        client.resolveAddress(new InetSocketAddress(address, port), TIMEOUT);
        client.resolveRoute(TIMEOUT);
        return client;
    }

    /** An RC queue pair, in RESET, on a new protection domain and an 8-entry completion queue of {@code context}. */
    static QueuePair rcQueuePair(Context context) {
        ProtectionDomain pd = context.allocateProtectionDomain();
        CompletionQueue cq = context.createCompletionQueue(8);
        return pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
    }
}
