// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.testing.TestDevice;
import dev.jrdma.tools.perftest.TestKind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the jrdma command line's device tests share: a run of jrdma in this JVM (a JVM start
 * costs seconds under emulation), the device and address, and waiting for a server to listen
 * without connecting to it.
 *
 * <p>Device: TestDevice ($JRDMA_TEST_DEVICE or rxe0), GID index 1 (the VM's IPv4-mapped RoCE v2 GID),
 * server address $JRDMA_TEST_ADDRESS or 10.200.0.1.
 */
final class JrdmaRuns {
    static final String DEVICE = TestDevice.name();
    static final String ADDRESS = System.getenv().getOrDefault("JRDMA_TEST_ADDRESS", "10.200.0.1");
    static final long TIMEOUT_S = 240;
    /**
     * --warm-up for every jrdma side of the matrices: 3 loopback runs a round, enough to run the
     * warm-up with each test and option combination (its effect on speed is shown by
     * scripts/perf-compare, not here).
     */
    static final String WARM_UP = "60";

    private JrdmaRuns() {
    }

    record Result(int code, String out, String err) {
        String all() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Both sides of one run. */
    record Pair(Result server, Result client) {
        /** Asserts that both sides exited 0, each message with both outputs. */
        Pair succeeded() {
            assertEquals(0, client.code(), client.all() + "\nserver: " + server.all());
            assertEquals(0, server.code(), server.all());
            return this;
        }
    }

    static Result jrdma(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Jrdma.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }

    /**
     * Runs the server side ({@code common} then {@code serverOptions}) in this JVM, waits until it
     * listens (on {@code port}, or with {@code rdmaCm} as an rdma_cm id), then the client
     * ({@code common}, {@code clientOptions} and {@link #ADDRESS}).
     */
    static Pair serverAndClient(int port, boolean rdmaCm, List<String> common, List<String> serverOptions,
                                List<String> clientOptions) throws Exception {
        CompletableFuture<Result> s = CompletableFuture.supplyAsync(() -> {
            List<String> server = new ArrayList<>(common);
            server.addAll(serverOptions);
            return jrdma(server.toArray(String[]::new));
        });
        awaitListening(port, s, rdmaCm);
        List<String> client = new ArrayList<>(common);
        client.addAll(clientOptions);
        client.add(ADDRESS);
        Result c = jrdma(client.toArray(String[]::new));
        return new Pair(s.get(TIMEOUT_S, TimeUnit.SECONDS), c);
    }

    /** {@link #serverAndClient} over TCP with the same arguments on both sides. */
    static Pair serverAndClient(int port, List<String> common) throws Exception {
        return serverAndClient(port, false, common, List.of(), List.of());
    }

    /**
     * {@link #serverAndClient} of {@code test} on a free port, GID index 1, without the warm-up
     * and with a 30 s --timeout, each side with its own options.
     */
    static Pair quickRun(String test, List<String> serverOptions, List<String> clientOptions) throws Exception {
        int port = freePort();
        List<String> common = List.of(test, "-d", DEVICE, "-x", "1", "-p", Integer.toString(port), "--warm-up", "0",
                "--timeout", "30");
        return serverAndClient(port, false, common, serverOptions, clientOptions);
    }

    /** The value of {@code name} in a --json report (a number, or a string without its quotes). */
    static String jsonValue(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"?([^,\"}\\s]+)").matcher(json);
        assertTrue(m.find(), "no " + name + " in " + json);
        return m.group(1);
    }

    /**
     * Reads {@code p}'s output into {@code lines} on a daemon thread as it comes (a test may
     * watch the lines of a run that has not ended); join the thread after the process ended.
     */
    static Thread collectLines(Process p, List<String> lines) {
        return Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    lines.add(l);
                }
            } catch (IOException e) {
                lines.add("reader: " + e);
            }
        });
    }

    static String exec(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return text;
    }

    static String[] jrdmaArgs(TestKind kind, List<String> rest) {
        List<String> a = new ArrayList<>(rest);
        a.addAll(0, List.of("--warm-up", WARM_UP));
        return args(kind.command(), a);
    }

    static String[] args(String first, List<String> rest) {
        List<String> a = new ArrayList<>();
        a.add(first);
        a.addAll(rest);
        return a.toArray(String[]::new);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static void awaitListening(int port, CompletableFuture<Result> server) throws Exception {
        awaitListening(port, server, false);
    }

    /**
     * Waits until something listens on {@code port} without connecting to it: a TCP listener in
     * /proc/net/tcp*, or with {@code rdmaCm} an rdma_cm id in state LISTEN on that port
     * ({@code rdma resource show cm_id}; neither perftest nor a perftest client retries a
     * control connect that finds no listener).
     */
    static void awaitListening(int port, CompletableFuture<Result> server, boolean rdmaCm) throws Exception {
        String hex = String.format(":%04X ", port);
        Pattern cmListener = Pattern.compile("LISTEN.*:" + port + "\\b");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (rdmaCm) {
                if (exec("rdma", "resource", "show", "cm_id").lines().anyMatch(l -> cmListener.matcher(l).find())) {
                    return;
                }
            }
            for (String f : rdmaCm ? List.<String>of() : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(f))) {
                    String[] cols = line.strip().split("\\s+");
                    if (cols.length > 3 && cols[1].endsWith(hex.strip()) && cols[3].equals("0A")) {
                        return;
                    }
                }
            }
            if (server != null && server.isDone()) {
                fail("the server ended before listening: " + server.get().all());
            }
            Thread.sleep(100);
        }
        fail("nothing listens on port " + port);
    }

    /** stderr without the warm-up's "JIT still busy" notes, which a loaded host may add to any run. */
    static String withoutWarmUpNotes(String err) {
        return err.lines().filter(l -> !l.matches("jrdma [a-z-]+: warm-up: (warming up|stopped after|the JIT was still "
                + "busy).*"))
                .collect(java.util.stream.Collectors.joining("\n"));
    }
}
