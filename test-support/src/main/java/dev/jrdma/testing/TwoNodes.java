// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Node 2 of the two-node testbed ({@code scripts/softroce --nodes 2}) seen from a test on node 1:
 * processes started there through {@code scripts/node 2}, the program agent there, and waits for
 * them to listen.
 */
public final class TwoNodes {
    /** Node 1's and node 2's addresses on the RDMA wire. */
    public static final String NODE1 = "10.200.1.1";
    public static final String NODE2 = "10.200.1.2";
    /** Node 2's address on the control link (scripts/node and test peers only). */
    public static final String NODE2_CONTROL = "10.201.1.2";
    /** The RDMA device on each node's wire (scripts/vm/guest-stage). */
    public static final String DEVICE = "rxe0";

    private static volatile AgentProcess agent;
    private static boolean stopAtExit;

    private TwoNodes() {}

    /**
     * The {@link ProgramAgent} on node 2, listening on the control link, with this JVM's class path:
     * started on first use (waiting at most {@code startTimeout}), shared by every test of this JVM
     * (a JVM start there costs as much as several programs' runs) and stopped when this JVM exits.
     * A new one replaces one that died; the request that saw it die has failed with its log.
     */
    public static synchronized AgentProcess agent(Duration startTimeout) throws IOException, InterruptedException {
        AgentProcess a = agent;
        if (a != null && !a.isAlive()) {
            System.out.println("two-node: the program agent on node 2 had ended; its log:\n" + a.log());
            a.close();
            a = null;
        }
        if (a == null) {
            a = AgentProcess.start(TwoNodes::onNode2, NODE2_CONTROL, startTimeout);
            agent = a;
        }
        if (!stopAtExit) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    AgentProcess last = agent;
                    if (last != null) {
                        last.close();
                    }
                } catch (IOException | InterruptedException e) {
                    // the JVM is ending; scripts/node ends with it
                }
            }));
            stopAtExit = true;
        }
        return a;
    }

    /** True inside the testbed (scripts/vm/guest-stage exports JRDMA_NODE). */
    public static boolean inTestbed() {
        return System.getenv("JRDMA_NODE") != null;
    }

    /** The wire interface of this node (rxe0 sits on it). */
    public static String wireInterface() {
        return System.getenv().getOrDefault("JRDMA_WIRE_IF", "eth0");
    }

    private static Path project() {
        String p = System.getenv("JRDMA_PROJECT");
        if (p == null) {
            throw new IllegalStateException("JRDMA_PROJECT unset: not inside scripts/softroce --nodes 2");
        }
        return Path.of(p);
    }

    /** The command line that runs {@code command} on node 2. */
    public static List<String> onNode2(List<String> command) {
        List<String> c = new ArrayList<>();
        c.add(project().resolve("scripts/node").toString());
        c.add("2");
        c.addAll(command);
        return c;
    }

    /** Starts {@code command} on node 2, its stdout and stderr into {@code log}. */
    public static Process start(List<String> command, Path log) throws IOException {
        return new ProcessBuilder(onNode2(command)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Runs {@code command} on node 2 to its end (bounded); its exit status and output. */
    public static Result run(long timeoutS, String... command) throws Exception {
        // Output to a file, not a pipe: reading a pipe to its end would wait on a hung command unbounded.
        Path out = Files.createTempFile("node2-run", ".out");
        try {
            Process p = new ProcessBuilder(onNode2(List.of(command))).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("node 2: " + String.join(" ", command) + " did not end in " + timeoutS + " s:\n"
                        + Files.readString(out, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    public record Result(int code, String out) {}

    /**
     * Waits until something listens on {@code port} on node 2, without connecting to it (perftest
     * serves the first connection only): a TCP listener in /proc/net/tcp, or with {@code rdmaCm}
     * an rdma_cm id in state LISTEN on that port.
     */
    public static void awaitListening(int port, boolean rdmaCm, Process server, Path log, long timeoutS)
            throws Exception {
        Pattern cmListener = Pattern.compile("LISTEN.*:" + port + "\\b");
        String hex = String.format(":%04X", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        while (System.nanoTime() < deadline) {
            Result r = rdmaCm ? run(30, "rdma", "resource", "show", "cm_id") : run(30, "cat", "/proc/net/tcp", "/proc/net/tcp6");
            boolean listening = rdmaCm ? r.out().lines().anyMatch(l -> cmListener.matcher(l).find())
                    : r.out().lines().map(l -> l.strip().split("\\s+"))
                            .anyMatch(c -> c.length > 3 && c[1].endsWith(hex) && c[3].equals("0A"));
            if (listening) {
                return;
            }
            if (!server.isAlive()) {
                throw new AssertionError("the server on node 2 ended before listening (exit " + server.exitValue()
                        + "):\n" + Files.readString(log, StandardCharsets.ISO_8859_1));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("nothing listens on node 2's port " + port + " after " + timeoutS + " s");
    }
}
