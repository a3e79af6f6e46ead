// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.TestDevices;
import dev.jrdma.testing.DeviceTest;
import java.io.IOException;
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
 * jrdma's rsocket channels against rdma-core's own rsocket tool, {@code rstream}
 * (rdmacm-utils), on the test device. With {@code -S size -C 1 -I n}, rstream's side of a
 * test is an echo: a 16-byte sync each way, then n times {@code size} bytes one way and the
 * same buffer back (rstream.c, run_test/sync_test). With {@code -T v} rstream fills what it
 * sends with a running byte counter and checks what it receives against its own counter
 * (common.c, format_buf/verify_buf), failing with a non-zero exit on the first wrong byte: so
 * jrdma's client sends that counter and checks the echo, and rstream checks jrdma's bytes and
 * jrdma's echo, both ways byte for byte.
 */
@DeviceTest
// A hang fails the one test, with JUnit's thread dump, and the run goes on.
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RstreamInteropDeviceTest {
    private static final Duration TIMEOUT = TestDevices.TIMEOUT;
    private static final int SIZE = 4096;
    private static final int ITERATIONS = 50;

    private static Process rstream(List<String> args) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of("rstream", "-S", String.valueOf(SIZE), "-C", "1",
                "-I", String.valueOf(ITERATIONS), "-T", "v"));
        command.addAll(args);
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String finish(Process p) throws Exception {
        try {
            if (!p.waitFor(TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)) {
                throw new AssertionError("rstream did not finish within " + TIMEOUT.multipliedBy(3));
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), "rstream failed: " + out);
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    private static void exchange(RdmaSocketChannel channel, byte[] sent) throws IOException {
        channel.write(ByteBuffer.wrap(sent));
        ByteBuffer back = ByteBuffer.allocate(sent.length);
        while (back.hasRemaining()) {
            if (channel.read(back) < 0) {
                throw new AssertionError("rstream closed after " + back.position() + " of " + sent.length + " bytes");
            }
        }
        assertArrayEquals(sent, back.array());
    }

    private static byte[] counted(int size, int[] counter) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) counter[0]++;
        }
        return bytes;
    }

    @Test
    void jrdmaClientAgainstRstreamServer() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        int port = ThreadLocalRandom.current().nextInt(20000, 30000);
        Process server = rstream(List.of("-b", address.getHostAddress(), "-p", String.valueOf(port)));
        try {
            RdmaSocketChannel client = null;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (client == null) {   // rstream needs a moment to listen
                try {
                    client = RdmaSocketChannel.open(new InetSocketAddress(address, port));
                } catch (java.net.ConnectException e) {
                    if (System.nanoTime() > deadline || !server.isAlive()) {
                        throw e;
                    }
                    Thread.sleep(200);
                }
            }
            try (RdmaSocketChannel c = client) {
                int[] counter = {0};   // rstream's format_buf: byte k of the stream is (uint8_t) k
                exchange(c, counted(16, counter));
                for (int i = 0; i < ITERATIONS; i++) {
                    exchange(c, counted(SIZE, counter));
                }
            }
        } finally {
            finish(server);
        }
    }

    @Test
    void rstreamClientAgainstJrdmaServer() throws Exception {
        Inet4Address address = TestDevices.ipv4Address();
        try (RdmaServerSocketChannel server = RdmaServerSocketChannel.open().timeout(TIMEOUT)
                .bind(new InetSocketAddress(address, 0), 1)) {
            int port = server.getLocalAddress().getPort();
            Process client = rstream(List.of("-s", address.getHostAddress(), "-p", String.valueOf(port)));
            long echoed = 0;
            try (RdmaSocketChannel peer = server.accept()) {
                ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
                while (peer.read(buffer) >= 0) {
                    buffer.flip();
                    echoed += peer.write(buffer);
                    buffer.clear();
                }
            }
            String out = finish(client);
            assertEquals(16 + (long) ITERATIONS * SIZE, echoed, out);   // the sync, then the blocks
        }
    }
}
