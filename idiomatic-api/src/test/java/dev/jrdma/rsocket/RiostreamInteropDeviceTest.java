// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.TestDevices;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's iomap/iowrite against rdma-core's {@code riostream} (rdmacm-utils) as the server.
 * riostream's protocol (riostream.c, run_test): each side riomaps its buffer of {@code -S size}
 * bytes at offset 0 (with RDMA_IOMAPSIZE 1 on both sides), a 16-byte sync goes each way by
 * rsend/rrecv, then per iteration the client riowrites its buffer into the server's with a
 * marker in the last byte (0, 2, 4, ...), and the server, once it sees the marker in its own
 * buffer, riowrites that buffer back with the marker plus one. The echo holds jrdma's bytes,
 * so jrdma checks every byte that comes back.
 */
@DeviceTest
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RiostreamInteropDeviceTest {
    private static final Duration TIMEOUT = TestDevices.TIMEOUT;
    private static final int SIZE = 4096;
    private static final int ITERATIONS = 20;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    @Test
    @Exercises({"riomap", "riowrite", "riounmap"})
    void jrdmaIowritesAgainstRiostreamServer() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        int port = ThreadLocalRandom.current().nextInt(30000, 40000);
        Process server = new ProcessBuilder(List.of("riostream", "-S", String.valueOf(SIZE), "-C", "1", "-I",
                String.valueOf(ITERATIONS), "-b", address.getHostAddress(), "-p", String.valueOf(port)))
                .redirectErrorStream(true).start();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment region = arena.allocate(SIZE, 4096);
            region.set(ValueLayout.JAVA_BYTE, SIZE - 1, (byte) -1);
            MemorySegment src = arena.allocate(SIZE);
            RdmaSocketChannel channel = connect(address, port, server);
            try (channel; IoMapping mapping = channel.iomap(region, 0)) {
                assertEquals(0, mapping.offset());
                channel.write(ByteBuffer.allocate(16));   // the sync; it also announces the mapping
                ByteBuffer sync = ByteBuffer.allocate(16);
                while (sync.hasRemaining()) {
                    if (channel.read(sync) < 0) {
                        throw new AssertionError("riostream closed during the sync");
                    }
                }
                byte marker = 0;
                for (int i = 0; i < ITERATIONS; i++) {
                    for (int b = 0; b < SIZE - 1; b++) {
                        src.set(ValueLayout.JAVA_BYTE, b, (byte) (i * 7 + b));
                    }
                    src.set(ValueLayout.JAVA_BYTE, SIZE - 1, marker++);
                    assertEquals(SIZE, channel.iowrite(src, 0));
                    awaitMarker(region, marker++, i);
                    assertArrayEquals(src.asSlice(0, SIZE - 1).toArray(ValueLayout.JAVA_BYTE),
                            region.asSlice(0, SIZE - 1).toArray(ValueLayout.JAVA_BYTE), "iteration " + i);
                }
            }
        } finally {
            if (!server.waitFor(TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)) {
                server.destroyForcibly();
                throw new AssertionError("riostream did not finish");
            }
            String out = new String(server.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, server.exitValue(), "riostream failed: " + out);
        }
    }

    private static RdmaSocketChannel connect(Inet4Address address, int port, Process server) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {   // riostream needs a moment to listen
            RdmaSocketChannel channel = RdmaSocketChannel.open().timeout(TIMEOUT)
                    .setOption(RdmaSocketOptions.IOMAP_SIZE, 1);
            try {
                channel.connect(new InetSocketAddress(address, port));
                return channel;
            } catch (java.net.ConnectException e) {
                channel.close();
                if (System.nanoTime() > deadline || !server.isAlive()) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** riostream's echo announces itself by the marker in the last byte, written last. */
    private static void awaitMarker(MemorySegment region, byte marker, int iteration) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while ((byte) BYTE.getVolatile(region, (long) (SIZE - 1)) != marker) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no echo from riostream in iteration " + iteration + " within " + TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }
}
