// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.testing.TwoNodes;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * jrdma's side of the protocols of rdma-core's rsocket tools ({@code rstream},
 * {@code riostream}, rdmacm-utils), for the interop tests on one node and across the two-node
 * wire: the tool runs on this node or on node 2 ({@link Where}), jrdma's channel in the test's
 * JVM, and both sides check every byte.
 *
 * <p>Both tools with {@code -T v} fill what they send with a running byte counter and check
 * what they receive against a counter of their own (common.c, format_buf/verify_buf), exiting
 * non-zero on the first wrong byte; jrdma sends the same counter and checks the same way.
 * <ul>
 * <li>{@code rstream -S size -C 1 -I n} (rstream.c, run_test/sync_test): a 16-byte sync each
 * way, then n times {@code size} bytes one way and the same bytes back.
 * <li>{@code riostream -S size -C 1 -I n} (riostream.c, run_test): each side riomaps its
 * {@code size}-byte buffer at offset 0 (RDMA_IOMAPSIZE 1 on both sides), a 16-byte sync goes
 * each way by rsend/rrecv (client first), then per iteration the client riowrites its buffer into
 * the server's with a marker in the last byte (0, 2, 4, ...), and the server, once it sees the
 * marker, riowrites its own buffer back with the marker plus one. The counter covers all bytes
 * but the marker.
 * </ul>
 */
final class RsocketTools {
    private RsocketTools() {}

    static final int SIZE = 4096;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    /** Where the C tool runs. */
    enum Where {
        THIS_NODE, NODE2;

        Process start(List<String> command, Path log) throws IOException {
            return this == NODE2 ? TwoNodes.start(command, log)
                    : new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
    }

    /** A tool's run: its process and the file its output goes to. */
    record Tool(String name, Process process, Path log) {
        static Tool start(Where where, String name, List<String> args) throws IOException {
            List<String> command = new ArrayList<>(List.of(name));
            command.addAll(args);
            Path log = Files.createTempFile(name, ".out");
            return new Tool(name, where.start(command, log), log);
        }

        /** Waits for the tool's end and asserts exit 0; returns its output. Kills it on the way out. */
        String finish(Duration timeout) throws Exception {
            try {
                if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                    throw new AssertionError(name + " did not finish within " + timeout + ":\n" + output());
                }
                String out = output();
                assertEquals(0, process.exitValue(), name + " failed: " + out);
                return out;
            } finally {
                process.destroyForcibly();
                Files.deleteIfExists(log);
            }
        }

        String output() throws IOException {
            return Files.readString(log, StandardCharsets.ISO_8859_1);
        }

        /** jrdma's side failed: stops the tool (which may wait for jrdma forever) and adds its output. */
        void stop(Throwable failure) throws IOException {
            process.destroyForcibly();
            failure.addSuppressed(new AssertionError(name + "'s output:\n" + output()));
            Files.deleteIfExists(log);
        }
    }

    static int port() {
        return ThreadLocalRandom.current().nextInt(20000, 40000);
    }

    /** The tools' arguments for one custom test of {@code iterations} transfers, verifying. */
    static List<String> args(int iterations, String... more) {
        List<String> args = new ArrayList<>(List.of("-S", String.valueOf(SIZE), "-C", "1", "-I",
                String.valueOf(iterations), "-T", "v"));
        args.addAll(List.of(more));
        return args;
    }

    /** A channel connected to the tool's server, trying again while it is not listening yet. */
    static RdmaSocketChannel connect(InetSocketAddress server, Tool tool, int iomapSize, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            RdmaSocketChannel channel = RdmaSocketChannel.open().timeout(timeout);
            try {
                if (iomapSize > 0) {
                    channel.setOption(RdmaSocketOptions.IOMAP_SIZE, iomapSize);
                }
                channel.connect(server);
                return channel;
            } catch (ConnectException e) {
                channel.close();
                if (System.nanoTime() > deadline || !tool.process().isAlive()) {
                    throw new AssertionError("no connection to " + tool.name() + " at " + server + ": " + e
                            + "\n" + tool.output(), e);
                }
                Thread.sleep(200);
            }
        }
    }

    /** The running byte counter of common.c's format_buf/verify_buf. */
    static final class Counter {
        private byte next;

        void fill(MemorySegment to, long size) {
            for (long i = 0; i < size; i++) {
                to.set(ValueLayout.JAVA_BYTE, i, next++);
            }
        }

        byte[] next(int size) {
            byte[] bytes = new byte[size];
            fill(MemorySegment.ofArray(bytes), size);
            return bytes;
        }

        void check(MemorySegment got, long size, String what) {
            byte[] expected = next((int) size);
            assertArrayEquals(expected, got.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE), what);
        }
    }

    private static void readFully(RdmaSocketChannel channel, ByteBuffer to, String what) throws IOException {
        while (to.hasRemaining()) {
            if (channel.read(to) < 0) {
                throw new AssertionError("the tool closed after " + to.position() + " bytes of " + what);
            }
        }
    }

    /** jrdma's client against {@code rstream}'s server: sends the counter, checks the echo. */
    static void rstreamServer(Where where, InetAddress toolAddress, int iterations, Duration timeout) throws Exception {
        int port = port();
        Tool tool = Tool.start(where, "rstream", args(iterations, "-b", toolAddress.getHostAddress(), "-p",
                String.valueOf(port)));
        try (RdmaSocketChannel c = connect(new InetSocketAddress(toolAddress, port), tool, 0, timeout)) {
            Counter counter = new Counter();
            exchange(c, counter.next(16));   // the sync
            for (int i = 0; i < iterations; i++) {
                exchange(c, counter.next(SIZE));
            }
        } catch (Exception | AssertionError e) {
            tool.stop(e);
            throw e;
        }
        tool.finish(timeout.multipliedBy(3));
    }

    private static void exchange(RdmaSocketChannel channel, byte[] sent) throws IOException {
        channel.write(ByteBuffer.wrap(sent));
        ByteBuffer back = ByteBuffer.allocate(sent.length);
        readFully(channel, back, "the echo");
        assertArrayEquals(sent, back.array());
    }

    /** {@code rstream}'s client against jrdma's server, an echo that counts what it echoed. */
    static void rstreamClient(Where where, InetAddress jrdmaAddress, int iterations, Duration timeout)
            throws Exception {
        try (RdmaServerSocketChannel server = RdmaServerSocketChannel.open().timeout(timeout)
                .bind(new InetSocketAddress(jrdmaAddress, 0), 1)) {
            Tool tool = Tool.start(where, "rstream", args(iterations, "-s", jrdmaAddress.getHostAddress(), "-p",
                    String.valueOf(server.getLocalAddress().getPort())));
            long echoed = 0;
            try (RdmaSocketChannel peer = server.accept()) {
                ByteBuffer buffer = ByteBuffer.allocateDirect(SIZE);
                while (peer.read(buffer) >= 0) {
                    buffer.flip();
                    echoed += peer.write(buffer);
                    buffer.clear();
                }
            } catch (Exception | AssertionError e) {
                tool.stop(e);
                throw e;
            }
            String out = tool.finish(timeout.multipliedBy(3));
            assertEquals(16 + (long) iterations * SIZE, echoed, out);   // the sync, then the blocks
        }
    }

    /** jrdma's client (iomap/iowrite) against {@code riostream}'s server. */
    static void riostreamServer(Where where, InetAddress toolAddress, int iterations, Duration timeout)
            throws Exception {
        int port = port();
        Tool tool = Tool.start(where, "riostream", args(iterations, "-b", toolAddress.getHostAddress(), "-p",
                String.valueOf(port)));
        try (Arena arena = Arena.ofShared()) {
            MemorySegment region = arena.allocate(SIZE, 4096);
            region.set(ValueLayout.JAVA_BYTE, SIZE - 1, (byte) -1);
            MemorySegment src = arena.allocate(SIZE);
            RdmaSocketChannel channel = connect(new InetSocketAddress(toolAddress, port), tool, 1, timeout);
            try (channel; IoMapping mapping = channel.iomap(region, 0)) {
                assertEquals(0, mapping.offset());
                channel.write(ByteBuffer.allocate(16));   // the sync; it also announces the mapping
                readFully(channel, ByteBuffer.allocate(16), "the sync");
                Counter sent = new Counter();
                Counter received = new Counter();
                byte marker = 0;
                for (int i = 0; i < iterations; i++) {
                    sent.fill(src, SIZE - 1);
                    src.set(ValueLayout.JAVA_BYTE, SIZE - 1, marker++);
                    assertEquals(SIZE, channel.iowrite(src, 0));
                    awaitMarker(region, marker++, i, timeout);
                    received.check(region, SIZE - 1, "riostream's echo, iteration " + i);
                }
            }
        } catch (Exception | AssertionError e) {
            tool.stop(e);
            throw e;
        }
        tool.finish(timeout.multipliedBy(3));
    }

    /** {@code riostream}'s client against jrdma's server (iomap/iowrite), echoing each buffer. */
    static void riostreamClient(Where where, InetAddress jrdmaAddress, int iterations, Duration timeout)
            throws Exception {
        try (Arena arena = Arena.ofShared();
                RdmaServerSocketChannel server = RdmaServerSocketChannel.open().timeout(timeout)
                        .setOption(RdmaSocketOptions.IOMAP_SIZE, 1)   // accepted channels inherit it
                        .bind(new InetSocketAddress(jrdmaAddress, 0), 1)) {
            MemorySegment region = arena.allocate(SIZE, 4096);
            region.set(ValueLayout.JAVA_BYTE, SIZE - 1, (byte) -1);
            MemorySegment src = arena.allocate(SIZE);
            Tool tool = Tool.start(where, "riostream", args(iterations, "-s", jrdmaAddress.getHostAddress(), "-p",
                    String.valueOf(server.getLocalAddress().getPort())));
            try (RdmaSocketChannel peer = server.accept(); IoMapping mapping = peer.iomap(region, 0)) {
                assertEquals(0, mapping.offset());
                readFully(peer, ByteBuffer.allocate(16), "the sync");
                peer.write(ByteBuffer.allocate(16));   // announces the mapping before riostream's first riowrite
                Counter sent = new Counter();
                Counter received = new Counter();
                byte marker = 0;
                for (int i = 0; i < iterations; i++) {
                    awaitMarker(region, marker++, i, timeout);
                    received.check(region, SIZE - 1, "riostream's buffer, iteration " + i);
                    sent.fill(src, SIZE - 1);
                    src.set(ValueLayout.JAVA_BYTE, SIZE - 1, marker++);
                    assertEquals(SIZE, peer.iowrite(src, 0));
                }
            } catch (Exception | AssertionError e) {
                tool.stop(e);
                throw e;
            }
            tool.finish(timeout.multipliedBy(3));
        }
    }

    /** riostream announces a transfer by the marker in the last byte, written last. */
    private static void awaitMarker(MemorySegment region, byte marker, int iteration, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while ((byte) BYTE.getVolatile(region, (long) (SIZE - 1)) != marker) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no transfer from riostream in iteration " + iteration + " within " + timeout);
            }
            Thread.onSpinWait();
        }
    }
}
