// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.TestDevice;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a user installs, used the way a user would, on an RDMA device: the .deb (dpkg -i, the
 * jrdma on PATH, its man page and completion, dpkg -r), the tarball, and the downstream project
 * of packaging/consumer on the module path and on the class path. Run by scripts/device-tests
 * as root in the Soft-RoCE VM, whose / is an overlay with a tmpfs upper layer, so dpkg changes
 * vanish with the VM. Needs `scripts/mvn verify` (the archives) and packaging/consumer/build.
 */
@DeviceTest
class InstallDeviceTest {
    private static final String DEVICE = TestDevice.name();
    private static final long TIMEOUT_S = 300;
    private static final Path MODULE = ModuleDir.PATH;
    private static final Path TARGET = MODULE.resolve("target");

    private record Result(int code, String out) {}

    @Test
    void debInstallsTheCommandManPagesAndCompletionAndRemovesCleanly() throws Exception {
        Path deb = only(TARGET, "jrdma_", "_all.deb");
        assertFalse(Files.exists(Path.of("/usr/bin/jrdma")), "/usr/bin/jrdma exists before the install");
        // man-db's dpkg trigger re-indexes /usr/share/man when this file exists: minutes under
        // emulation, and man -l needs no index. The VM's / is a throwaway overlay.
        Files.deleteIfExists(Path.of("/var/lib/man-db/auto-update"));
        Result install = run("dpkg", "-i", deb.toString());
        assertEquals(0, install.code(), "dpkg -i: " + install.out());
        List<String> files = new ArrayList<>();
        try {
            files.addAll(run("dpkg", "-L", "jrdma").out().lines().toList());
            assertTrue(files.contains("/usr/bin/jrdma"), "dpkg -L: " + files);
            assertTrue(files.contains("/usr/share/bash-completion/completions/jrdma"), "dpkg -L: " + files);
            assertTrue(files.contains("/usr/share/man/man1/jrdma-send-lat.1"), "dpkg -L: " + files);

            Result which = run("bash", "-c", "command -v jrdma");
            assertEquals("/usr/bin/jrdma", which.out().strip(), which.out());
            Result devices = run("jrdma", "devices");
            assertEquals(0, devices.code(), devices.out());
            assertTrue(devices.out().contains(DEVICE), devices.out());

            sendLatFromPath();

            Result man = run("man", "-P", "cat", "-l", "/usr/share/man/man1/jrdma-send-lat.1");
            assertEquals(0, man.code(), man.out());
            assertTrue(man.out().contains("jrdma-send-lat - Send latency"), man.out());
            assertTrue(man.out().contains("--ib-dev"), man.out());
            Result completion = run("bash", "-c",
                    ". /usr/share/bash-completion/completions/jrdma && complete -p jrdma");
            assertTrue(completion.out().contains("-F _complete_jrdma jrdma"), completion.out());
        } finally {
            Result remove = run("dpkg", "-r", "jrdma");
            assertEquals(0, remove.code(), "dpkg -r: " + remove.out());
        }
        for (String f : files) {
            Path p = Path.of(f);
            if (!f.isBlank() && !f.equals("/.") && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                assertFalse(Files.exists(p, LinkOption.NOFOLLOW_LINKS), "left after dpkg -r: " + f);
            }
        }
        assertFalse(Files.exists(Path.of("/usr/share/jrdma")), "/usr/share/jrdma left after dpkg -r");
        Result status = run("dpkg-query", "-W", "-f=${db:Status-Status}", "jrdma");
        assertTrue(status.code() != 0 || status.out().strip().equals("not-installed"), "dpkg status: " + status.out());
    }

    /** Server and client of jrdma send-lat as a user runs them: from PATH, on one device. */
    private static void sendLatFromPath() throws Exception {
        int port = 18561;
        // --warm-up 0: this checks the installed program, not its figures; saves ~1 min under TCG.
        List<String> common = List.of("jrdma", "send-lat", "-d", DEVICE, "-p", Integer.toString(port), "-n", "100",
                "--warm-up", "0", "--timeout", "120");
        CompletableFuture<Result> server = new CompletableFuture<>();
        Thread.ofPlatform().name("send-lat server").start(() -> {
            try {
                server.complete(run(common));
            } catch (Throwable t) {
                server.completeExceptionally(t);
            }
        });
        awaitListening(port, server);
        List<String> client = new ArrayList<>(common);
        client.add("127.0.0.1");
        Result c = run(client);
        Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(0, c.code(), "client: " + c.out() + "\nserver: " + s.out());
        assertEquals(0, s.code(), "server: " + s.out());
        assertTrue(c.out().contains("t_typical[usec]"), c.out());
    }

    /** Waits until the server listens on port, from /proc/net/tcp: a probing connect would be its peer. */
    private static void awaitListening(int port, CompletableFuture<Result> server) throws Exception {
        String local = String.format(":%04X", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            for (String f : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(f))) {
                    String[] cols = line.strip().split("\\s+");
                    if (cols.length > 3 && cols[1].endsWith(local) && cols[3].equals("0A")) {
                        return;
                    }
                }
            }
            if (server.isDone()) {
                throw new AssertionError("the server ended before listening: " + server.get().out());
            }
            Thread.sleep(100);
        }
        throw new AssertionError("nothing listens on port " + port);
    }

    @Test
    void tarballRunsFromWhereItIsUnpacked() throws Exception {
        Path tarball = only(TARGET, "jrdma-", ".tar.gz");
        Path dir = Files.createTempDirectory("jrdma-tarball");
        assertEquals(0, run("tar", "-xzf", tarball.toString(), "-C", dir.toString()).code());
        Path bin;
        try (Stream<Path> s = Files.list(dir)) {
            bin = s.findFirst().orElseThrow().resolve("bin/jrdma");
        }
        Result version = run(bin.toString(), "--version");
        assertEquals(0, version.code(), version.out());
        assertTrue(version.out().contains("libibverbs loaded: /"), version.out());
        Result devices = run(bin.toString(), "devices");
        assertEquals(0, devices.code(), devices.out());
        assertTrue(devices.out().contains(DEVICE), devices.out());
        assertEquals(0, run("rm", "-rf", dir.toString()).code());
    }

    @Test
    void consumerRunsOnTheModulePath() throws Exception {
        Path consumer = MODULE.resolve("consumer/target");
        Result r = run(java(), "--enable-native-access=dev.jrdma,dev.jrdma.bindings",
                "--module-path", consumer.resolve("classes") + File.pathSeparator + consumer.resolve("lib"),
                "--module", "org.example.consumer/org.example.consumer.ListDevices");
        assertEquals(0, r.code(), r.out() + "\n(built by packaging/consumer/build?)");
        assertTrue(r.out().contains("running as module org.example.consumer, jrdma as module dev.jrdma"), r.out());
        assertTrue(r.out().contains("device " + DEVICE), r.out());
        assertFalse(r.out().contains("WARNING: A restricted method"), r.out());
    }

    @Test
    void consumerRunsOnTheClassPath() throws Exception {
        Path consumer = MODULE.resolve("consumer/target");
        Result r = run(java(), "--enable-native-access=ALL-UNNAMED",
                "-cp", consumer.resolve("classes") + File.pathSeparator + consumer.resolve("lib") + "/*",
                "org.example.consumer.ListDevices");
        assertEquals(0, r.code(), r.out() + "\n(built by packaging/consumer/build?)");
        assertTrue(r.out().contains("running on the class path, jrdma on the class path"), r.out());
        assertTrue(r.out().contains("device " + DEVICE), r.out());
        assertFalse(r.out().contains("WARNING: A restricted method"), r.out());
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The one file in dir named PREFIX*SUFFIX. */
    private static Path only(Path dir, String prefix, String suffix) throws IOException {
        List<Path> found;
        try (Stream<Path> s = Files.list(dir)) {
            found = s.filter(p -> p.getFileName().toString().startsWith(prefix)
                    && p.getFileName().toString().endsWith(suffix)).toList();
        }
        assertEquals(1, found.size(), "expected one " + prefix + "*" + suffix + " in " + dir + " (scripts/mvn verify)");
        return found.getFirst();
    }

    private static Result run(String... command) throws IOException, InterruptedException {
        return run(List.of(command));
    }


    /**
     * Runs a command with its output in a file (no reader thread to starve) and says on stdout
     * what ran and for how long: under emulation a JVM can take a minute to start.
     */
    private static Result run(List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("install-device-test", ".out");
        try {
            long start = System.nanoTime();
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            // The launchers' own JIT choice under TCG (C2 only, lib/sh/jit.sh) is for measuring; these
            // runs measure nothing, and with C1 a jrdma JVM starts sooner in the VM.
            pb.environment().put("JRDMA_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("no exit within " + TIMEOUT_S + " s: " + command + "\n" + Files.readString(out));
            }
            System.out.printf("  [%.1f s, exit %d] %s%n", (System.nanoTime() - start) / 1e9, p.exitValue(),
                    String.join(" ", command));
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
