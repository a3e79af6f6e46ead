// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's rdma_cm example peers against rdma-core's own rdma_cm tools (rdmacm-utils) on the test
 * device, both roles: {@link UcmatosePeer} against {@code ucmatose}. Each side checks the
 * protocol its way (the tool by its exit status and its lines, jrdma by every completion).
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

        /** Waits until the tool's rdma_cm id listens on {@code port} ({@code rdma resource show cm_id}). */
        void awaitListening(String port) throws Exception {
            Pattern listening = Pattern.compile("LISTEN.*:" + port + "\\b");
            long deadline = System.nanoTime() + ExamplesDeviceTest.TIMEOUT.toNanos();
            while (System.nanoTime() < deadline && process.isAlive()) {
                Process rdma = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
                String out = new String(rdma.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                rdma.waitFor();
                if (out.lines().anyMatch(l -> listening.matcher(l).find())) {
                    return;
                }
                Thread.sleep(200);
            }
            throw new AssertionError("the tool does not listen on port " + port + ":\n"
                    + Files.readString(log, StandardCharsets.ISO_8859_1));
        }
    }

    private static InetSocketAddress at(String port) {
        return new InetSocketAddress(ExamplesDeviceTest.host, Integer.parseInt(port));
    }

    @Test
    void ucmatoseClientAgainstJrdmaServer() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        CountDownLatch listening = new CountDownLatch(1);
        CompletableFuture<String> server = CompletableFuture.supplyAsync(
                () -> UcmatosePeer.server(at(port), ExamplesDeviceTest.TIMEOUT, listening::countDown),
                r -> Thread.ofPlatform().name("ucmatose peer").start(r));
        assertTrue(listening.await(ExamplesDeviceTest.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the peer listens");
        String out = Tool.start(List.of("ucmatose", "-s", ExamplesDeviceTest.host, "-p", port)).finish();
        assertTrue(out.contains("data transfers complete") && out.contains("return status 0"), out);
        assertEquals("server: sent 10 messages of 100 bytes, received 10 replies, disconnected",
                server.get(ExamplesDeviceTest.TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void jrdmaClientAgainstUcmatoseServer() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        Tool tool = Tool.start(List.of("ucmatose", "-b", ExamplesDeviceTest.host, "-p", port));
        String report;
        try {
            tool.awaitListening(port);
            report = UcmatosePeer.client(at(port), ExamplesDeviceTest.TIMEOUT);
        } catch (Exception | AssertionError e) {
            tool.process().destroyForcibly();
            throw e;
        }
        String out = tool.finish();
        assertTrue(out.contains("data transfers complete") && out.contains("disconnected"), out);
        assertEquals("client: received 10 messages of 100 bytes, sent 10 replies, the server disconnected", report);
    }
}
