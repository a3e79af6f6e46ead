// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.jrdma.testing.TestDevice;
import java.net.Inet4Address;
import java.time.Duration;

/**
 * The device the device tests use ({@link TestDevice}) as an {@link RdmaDevice}, and their bounds.
 * Public for the tests of {@code dev.jrdma.cm}.
 */
public final class TestDevices {
    public static final int PORT = Context.FIRST_PORT;
    /** Under TCG emulation a round trip can take milliseconds; this bounds every completion wait. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private TestDevices() {}

    public static RdmaDevice device() {
        String name = TestDevice.name();
        return Rdma.device(name).orElseThrow(() -> new AssertionError("the kernel lists " + name
                + " but libibverbs does not: " + Rdma.devices()));
    }

    /** The entry the library picks by default: the test device's RoCE v2 IPv4 GID, or IB's first. */
    public static GidEntry gid(Context context) {
        return context.defaultGid(PORT);
    }

    /** The IPv4 address of the test device's default GID: where rdma_cm tests listen and connect. */
    public static Inet4Address ipv4Address() {
        try (Context context = device().open()) {
            return gid(context).ipv4().orElseThrow(() -> new AssertionError("no IPv4 GID"));
        }
    }

    /** Connects {@code a} and {@code b} to each other's endpoint: a loopback through the device. */
    static void connectEachOther(QueuePair a, QueuePair b) {
        Endpoint ea = a.localEndpoint();
        Endpoint eb = b.localEndpoint();
        a.connect(eb);
        b.connect(ea);
    }

    /** An RC queue pair, in RESET, on a new protection domain and an 8-entry completion queue of {@code context}. */
    public static QueuePair rcQueuePair(Context context) {
        ProtectionDomain pd = context.allocateProtectionDomain();
        CompletionQueue cq = context.createCompletionQueue(8);
        return pd.queuePair(QueuePairType.RC).completionQueue(cq).build();
    }

    /**
     * Sends 16 bytes of {@code mr} from {@code a} to a receive posted on {@code b} (connected to
     * each other, both on {@code cq}, which is armed on {@code channel}), then asserts that the
     * channel wakes for {@code cq} and that both completions arrive, successful, within the timeout.
     */
    static void sendAndAwaitChannel(QueuePair a, QueuePair b, MemoryRegion mr, CompletionQueue cq,
            CompletionChannel channel) {
        b.post(new ReceiveRequest().wrId(1).sge(mr, 2048, 64));
        a.post(new SendRequest().wrId(2).sge(mr, 0, 16));
        assertSame(cq, channel.await(TIMEOUT));
        WorkCompletion wc = new WorkCompletion();
        int seen = 0;
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (seen < 2 && System.nanoTime() < deadline) {
            if (cq.poll(wc) > 0) {
                wc.checkSuccess();
                seen++;
            }
        }
        assertEquals(2, seen);
    }
}
