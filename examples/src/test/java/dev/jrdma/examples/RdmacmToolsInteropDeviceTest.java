// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's rdma_cm example peers against rdma-core's own rdma_cm tools (rdmacm-utils) on the test
 * device, both roles: {@link UcmatosePeer} against {@code ucmatose}, {@link RpingPeer} against
 * {@code rping}, {@link UdaddyPeer} against {@code udaddy}, {@link MckeyPeer} against
 * {@code mckey} (a multicast group, sender and receiver). Each side checks the protocol its way (the tool by its exit status and its
 * lines, jrdma by every completion); rping's ping data is checked byte for byte on both sides.
 */
@DeviceTest
@Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RdmacmToolsInteropDeviceTest {
    @BeforeAll
    static void findTheDevice() {
        ExamplesDeviceTest.findTheDevice();
    }

    /** A C tool's run, its output in a file (a pipe read to its end would wait on a hung tool). */
    private record Tool(Process process, Path log) {
        static Tool start(List<String> command) throws Exception {
            Path log = Files.createTempFile("rdmacm-tool", ".out");
            return new Tool(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start(),
                    log);
        }

        String finish() throws Exception {
            try {
                boolean ended = process.waitFor(ExamplesDeviceTest.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                String out = Files.readString(log, StandardCharsets.ISO_8859_1);
                assertTrue(ended, "the tool did not end:\n" + out);
                assertEquals(0, process.exitValue(), out);
                return out;
            } finally {
                process.destroyForcibly();
                Files.deleteIfExists(log);
            }
        }

        /** Waits until {@code ready} holds, polling while the tool runs; fails saying what the tool {@code failed}. */
        private void await(String failed, Callable<Boolean> ready) throws Exception {
            long deadline = System.nanoTime() + ExamplesDeviceTest.TIMEOUT.toNanos();
            while (System.nanoTime() < deadline && process.isAlive()) {
                if (ready.call()) {
                    return;
                }
                Thread.sleep(200);
            }
            throw new AssertionError("the tool " + failed + ":\n" + Files.readString(log, StandardCharsets.ISO_8859_1));
        }

        /** Waits until the tool's rdma_cm id listens on {@code port} ({@code rdma resource show cm_id}). */
        private void awaitListening(String port) throws Exception {
            Pattern listening = Pattern.compile("LISTEN.*:" + port + "\\b");
            await("does not listen on port " + port, () -> {
                Process rdma = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
                String out = new String(rdma.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                rdma.waitFor();
                return out.lines().anyMatch(l -> listening.matcher(l).find());
            });
        }

        /** Waits until the tool printed a line starting with {@code prefix} (its stdout line-buffered). */
        private void awaitPrinted(String prefix) throws Exception {
            await("did not print \"" + prefix + "\"", () -> Files.readString(log, StandardCharsets.ISO_8859_1)
                    .lines().anyMatch(l -> l.startsWith(prefix)));
        }

        /** Runs jrdma's client once the tool listens on {@code port}; a failing client takes the tool down. */
        <T> T whenListening(String port, Callable<T> client) throws Exception {
            return once(() -> awaitListening(port), client);
        }

        /** Runs jrdma's peer once the tool printed {@code prefix}; a failing peer takes the tool down. */
        <T> T whenPrinted(String prefix, Callable<T> peer) throws Exception {
            return once(() -> awaitPrinted(prefix), peer);
        }

        private interface Readiness {
            void await() throws Exception;
        }

        private <T> T once(Readiness ready, Callable<T> peer) throws Exception {
            try {
                ready.await();
                return peer.call();
            } catch (Exception | AssertionError e) {
                process.destroyForcibly();
                throw e;
            }
        }
    }

    private static InetSocketAddress at(String port) {
        return new InetSocketAddress(ExamplesDeviceTest.host, Integer.parseInt(port));
    }

    /**
     * Starts a jrdma server peer (or a group member) on a thread of its own and returns once it
     * listens (or joined), its report to come.
     */
    private static CompletableFuture<String> serverPeer(String name, Function<Runnable, String> server)
            throws InterruptedException {
        CountDownLatch listening = new CountDownLatch(1);
        CompletableFuture<String> report = CompletableFuture.supplyAsync(() -> server.apply(listening::countDown),
                r -> Thread.ofPlatform().name(name).start(r));
        assertTrue(listening.await(ExamplesDeviceTest.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the peer listens (or joined its group)");
        return report;
    }

    private static String report(CompletableFuture<String> peer) throws Exception {
        return peer.get(ExamplesDeviceTest.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void ucmatoseClientAgainstJrdmaServer() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        CompletableFuture<String> server = serverPeer("ucmatose peer",
                listening -> UcmatosePeer.server(at(port), ExamplesDeviceTest.TIMEOUT, listening));
        String out = Tool.start(List.of("ucmatose", "-s", ExamplesDeviceTest.host, "-p", port)).finish();
        assertTrue(out.contains("data transfers complete") && out.contains("return status 0"), out);
        assertEquals("server: sent 10 messages of 100 bytes, received 10 replies, disconnected", report(server));
    }

    @Test
    void jrdmaClientAgainstUcmatoseServer() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        Tool tool = Tool.start(List.of("ucmatose", "-b", ExamplesDeviceTest.host, "-p", port));
        String report = tool.whenListening(port, () -> UcmatosePeer.client(at(port), ExamplesDeviceTest.TIMEOUT));
        String out = tool.finish();
        assertTrue(out.contains("data transfers complete") && out.contains("disconnected"), out);
        assertEquals("client: received 10 messages of 100 bytes, sent 10 replies, the server disconnected", report);
    }

    /** rping's pings per run ({@code -C}); its server has no count and ends on the client's disconnect. */
    private static final int PINGS = 10;

    /** The line {@code rping -v} prints for ping {@code ping}: its data up to the NUL. */
    private static String pingLine(String prefix, int ping) {
        return prefix + new String(RpingPeer.pingData(ping, RpingPeer.SIZE), 0, RpingPeer.SIZE - 1,
                StandardCharsets.US_ASCII);
    }

    @Test
    void rpingClientAgainstJrdmaServer() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        CompletableFuture<String> server = serverPeer("rping peer",
                listening -> RpingPeer.server(at(port), PINGS, ExamplesDeviceTest.TIMEOUT, listening));
        // -V: rping compares what jrdma wrote back with what it sent, and exits non-zero on a mismatch.
        String out = Tool.start(List.of("rping", "-c", "-v", "-V", "-C", String.valueOf(PINGS),
                "-a", ExamplesDeviceTest.host, "-p", port)).finish();
        for (int ping = 0; ping < PINGS; ping++) {
            ExamplesDeviceTest.assertLine(out, pingLine("ping data: ", ping));
        }
        assertEquals("server: read 10 pings of 64 bytes, each as rping sends it, wrote each back,"
                + " the client disconnected", report(server));
    }

    @Test
    void jrdmaClientAgainstRpingServer() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        Tool tool = Tool.start(List.of("rping", "-s", "-v", "-a", ExamplesDeviceTest.host, "-p", port));
        String report = tool.whenListening(port, () -> RpingPeer.client(at(port), PINGS, ExamplesDeviceTest.TIMEOUT));
        String out = tool.finish();
        // -v: rping's server prints what it read from jrdma's start buffer, which it then wrote back.
        for (int ping = 0; ping < PINGS; ping++) {
            ExamplesDeviceTest.assertLine(out, pingLine("server ping data: ", ping));
        }
        assertEquals("client: 10 pings of 64 bytes read by the server and written back intact", report);
    }

    /** udaddy's server address: its port is fixed ({@link UdaddyPeer#PORT}). */
    private static InetSocketAddress udaddy() {
        return new InetSocketAddress(ExamplesDeviceTest.host, UdaddyPeer.PORT);
    }

    @Test
    void udaddyClientAgainstJrdmaServer() throws Exception {
        CompletableFuture<String> server = serverPeer("udaddy peer",
                listening -> UdaddyPeer.server(udaddy(), ExamplesDeviceTest.TIMEOUT, listening));
        String out = Tool.start(List.of("udaddy", "-s", ExamplesDeviceTest.host)).finish();
        assertTrue(out.contains("data transfers complete") && out.contains("return status 0"), out);
        assertEquals("server: received 10 datagrams of 100 bytes, each with its sender's QPN as immediate data,"
                + " sent 10 back", report(server));
    }

    @Test
    void jrdmaClientAgainstUdaddyServer() throws Exception {
        Tool tool = Tool.start(List.of("udaddy", "-b", ExamplesDeviceTest.host));
        String report = tool.whenListening(String.valueOf(UdaddyPeer.PORT),
                () -> UdaddyPeer.client(udaddy(), ExamplesDeviceTest.TIMEOUT));
        String out = tool.finish();
        assertTrue(out.contains("data transfers complete") && out.contains("return status 0"), out);
        assertEquals("client: sent 10 datagrams of 100 bytes, received 10 back from the QPN rdma_cm resolved", report);
    }

    /** The device's own address: mckey binds to it ({@code -b}) as jrdma's member does. */
    private static InetAddress local() throws Exception {
        return InetAddress.getByName(ExamplesDeviceTest.host);
    }

    @Test
    void mckeySenderAgainstJrdmaReceiver() throws Exception {
        InetAddress local = local();
        CompletableFuture<String> receiver = serverPeer("mckey peer",
                joined -> MckeyPeer.receiver(local, ExamplesDeviceTest.TIMEOUT, joined));
        String out = Tool.start(List.of("mckey", "-m", MckeyPeer.GROUP, "-b", ExamplesDeviceTest.host, "-s")).finish();
        assertTrue(out.contains("initiating data transfers") && out.contains("data transfers complete")
                && out.contains("return status 0"), out);
        assertEquals("receiver: joined " + MckeyPeer.GROUP + ", received 10 datagrams of 100 bytes from one sender,"
                + " each addressed to the group, its sender's QPN as immediate data", report(receiver));
    }

    @Test
    void jrdmaSenderAgainstMckeyReceiver() throws Exception {
        InetAddress local = local();
        // stdbuf -oL: mckey's stdout is a file, and its "joined" line (its receives posted, its
        // queue pair attached) must reach it when printed, not at exit.
        Tool tool = Tool.start(List.of("stdbuf", "-oL", "mckey", "-m", MckeyPeer.GROUP, "-b",
                ExamplesDeviceTest.host));
        String report = tool.whenPrinted("mckey: joined dgid:", () -> MckeyPeer.sender(local, ExamplesDeviceTest.TIMEOUT));
        String out = tool.finish();
        // mckey's receiver ends only once it has taken 10 completions: exit 0 is the count.
        assertTrue(out.contains("receiving data transfers") && out.contains("data transfers complete")
                && out.contains("return status 0"), out);
        assertEquals("sender: joined " + MckeyPeer.GROUP + ", sent 10 datagrams of 100 bytes to QPN 0xffffff"
                + " with the join's Q_Key, each completion successful", report);
    }
}
