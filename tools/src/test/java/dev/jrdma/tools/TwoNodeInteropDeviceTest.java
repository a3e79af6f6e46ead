// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import dev.jrdma.tools.RemoteJrdma.Result;
import dev.jrdma.tools.perftest.TestKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The perftest tests across a wire (scripts/softroce --nodes 2): a server on node 1, its client on
 * node 2, in three pairings - jrdma with jrdma, a jrdma client with a perftest server (node 2), a
 * perftest client (node 2) with a jrdma server - plainly, with -R (rdma_cm resolves the peer's
 * address over the wire), -c UD (send tests) and -b (BW tests). Every side must report the other
 * node's GID as its remote address: the traffic crossed the wire, not a loopback.
 */
@TwoNodeTest
class TwoNodeInteropDeviceTest {
    private static final int ITERS = 50;
    private static final long TIMEOUT_S = 240;
    private static final AtomicInteger PORTS = new AtomicInteger(21000);
    private static RemoteJrdma node2;
    /** JRDMA_TWO_NODE_ONLY=regex narrows the matrix to the cases whose name it finds, e.g. "SEND_LAT \\[\\]". */
    private static final Pattern ONLY = Pattern.compile(System.getenv().getOrDefault("JRDMA_TWO_NODE_ONLY", ""));

    enum Mode { JRDMA_JRDMA, JRDMA_CLIENT_PERFTEST_SERVER, PERFTEST_CLIENT_JRDMA_SERVER }

    @BeforeAll
    static void startJrdmaOnNode2() throws Exception {
        long start = System.nanoTime();
        node2 = RemoteJrdma.start(300);
        System.out.printf("two-node: jrdma on node 2 serving after %.1f s%n", (System.nanoTime() - start) / 1e9);
    }

    @AfterAll
    static void stopJrdmaOnNode2() throws Exception {
        if (node2 != null) {
            node2.close();
        }
    }

    static List<Arguments> matrix() {
        List<Arguments> a = new ArrayList<>();
        for (TestKind k : TestKind.values()) {
            List<String> options = new ArrayList<>(List.of("", "-R"));
            if (k.connections().contains(TestKind.Connection.UD)) {
                options.add("-c UD");
            }
            if (k.bandwidth()) {
                options.add("-b");
            }
            options.addAll(InteropOptions.forKind(k));
            for (String o : options) {
                for (Mode m : Mode.values()) {
                    if (ONLY.matcher(k + " [" + o + "] " + m).find()) {
                        a.add(Arguments.of(k, o, m));
                    }
                }
            }
        }
        return a;
    }

    @ParameterizedTest(name = "{0} [{1}] {2}")
    @MethodSource("matrix")
    void perftestTestsInteroperateAcrossTheWire(TestKind kind, String options, Mode mode) throws Exception {
        int attempts = mode == Mode.JRDMA_JRDMA ? 1 : 3;   // perftest's CPU-MHz estimate under TCG: see below
        for (int attempt = 1; ; attempt++) {
            long start = System.nanoTime();
            String retry = runOnce(kind, options, mode);
            System.out.printf("two-node: %s [%s] %s attempt %d: %.1f s%n", kind, options, mode, attempt,
                    (System.nanoTime() - start) / 1e9);
            if (retry == null) {
                return;
            }
            if (attempt == attempts) {
                fail(retry);
            }
        }
    }

    private static String runOnce(TestKind kind, String options, Mode mode) throws Exception {
        int port = PORTS.getAndIncrement();
        // -x 1 (the IPv4-mapped GID) unless the case chooses the GID itself (-x, --ipv6).
        boolean ownGid = options.contains("-x ") || options.contains("--ipv6");
        List<String> common = new ArrayList<>(List.of("-d", "rxe0", "-p", Integer.toString(port), "-n",
                Integer.toString(ITERS)));
        if (!ownGid) {
            common.addAll(2, List.of("-x", "1"));   // after "-d", "rxe0"
        }
        if (!options.isBlank()) {
            common.addAll(List.of(options.split(" ")));
        }
        // -z: the exchange runs over rdma_cm too (the server listens with an rdma_cm id, not TCP).
        boolean rdmaCm = options.equals("-R") || options.equals("-z");
        // {self} in a case's options is the wire address of the node the side runs on.
        List<String> onNode1 = self(common, TwoNodes.NODE1);
        List<String> onNode2 = self(common, TwoNodes.NODE2);
        List<String> jrdmaServer = jrdma(kind, onNode1);
        String node1Out;   // the side on node 1, whose remote is node 2
        String node2Out;
        switch (mode) {
            case JRDMA_JRDMA -> {
                CompletableFuture<Result> s = CompletableFuture.supplyAsync(() -> Result.local(jrdmaServer));
                awaitListeningHere(port, rdmaCm, s);
                Result c = node2.run(TIMEOUT_S, with(jrdma(kind, onNode2), TwoNodes.NODE1));
                Result sr = s.get(TIMEOUT_S, TimeUnit.SECONDS);
                assertEquals(0, c.code(), "client on node 2: " + c.all() + "\nserver on node 1: " + sr.all());
                assertEquals(0, sr.code(), "server on node 1: " + sr.all());
                node1Out = sr.out();
                node2Out = c.out();
            }
            case JRDMA_CLIENT_PERFTEST_SERVER -> {
                Path log = Files.createTempFile(kind.perftestBinary(), ".out");
                Process p = TwoNodes.start(perftest(kind, onNode2), log);
                try {
                    TwoNodes.awaitListening(port, rdmaCm, p, log, 120);
                    Result c = Result.local(with(jrdma(kind, onNode1), TwoNodes.NODE2));
                    boolean exited = p.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
                    String perftestOut = Files.readString(log, StandardCharsets.ISO_8859_1);
                    if (perftestOut.contains("Can't produce a report")) {
                        assertEquals(1, c.code(), c.all());
                        return "perftest server failed under emulation: " + perftestOut;
                    }
                    assertEquals(0, c.code(), "jrdma client on node 1: " + c.all() + "\nperftest server:\n" + perftestOut);
                    assertTrue(exited, "perftest server on node 2 did not exit:\n" + perftestOut);
                    assertEquals(0, p.exitValue(), "perftest server on node 2:\n" + perftestOut);
                    node1Out = c.out();
                    node2Out = perftestOut;
                } finally {
                    p.destroyForcibly();
                    Files.deleteIfExists(log);
                }
            }
            case PERFTEST_CLIENT_JRDMA_SERVER -> {
                CompletableFuture<Result> s = CompletableFuture.supplyAsync(() -> Result.local(jrdmaServer));
                awaitListeningHere(port, rdmaCm, s);
                Path log = Files.createTempFile(kind.perftestBinary(), ".out");
                Process p = TwoNodes.start(with(perftest(kind, onNode2), TwoNodes.NODE1), log);
                try {
                    boolean exited = p.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
                    String perftestOut = Files.readString(log, StandardCharsets.ISO_8859_1);
                    if (perftestOut.contains("Can't produce a report")) {
                        s.get(TIMEOUT_S, TimeUnit.SECONDS);   // our server must still end
                        return "perftest client failed under emulation: " + perftestOut;
                    }
                    Result sr = s.get(TIMEOUT_S, TimeUnit.SECONDS);
                    assertTrue(exited, "perftest client on node 2 did not exit:\n" + perftestOut);
                    assertEquals(0, p.exitValue(), "perftest client on node 2:\n" + perftestOut + "\njrdma server: "
                            + sr.all());
                    assertEquals(0, sr.code(), "jrdma server on node 1: " + sr.all() + "\nperftest client:\n"
                            + perftestOut);
                    node1Out = sr.out();
                    node2Out = perftestOut;
                } finally {
                    p.destroyForcibly();
                    Files.deleteIfExists(log);
                }
            }
            default -> throw new AssertionError(mode);
        }
        Matcher c = Pattern.compile("-c (\\w+)").matcher(options);
        String connection = c.find() ? c.group(1) : "RC";
        // As in perftest, the server of read-lat and atomic-lat is passive: the client's READs and
        // atomics need no work on its side, so only the client measures and prints the table.
        String serverOut = mode == Mode.JRDMA_CLIENT_PERFTEST_SERVER ? node2Out : node1Out;
        boolean passiveServer = kind == TestKind.READ_LAT || kind == TestKind.ATOMIC_LAT;
        for (String out : List.of(node1Out, node2Out)) {
            assertTrue(Pattern.compile("Connection type : " + connection + "\\b").matcher(out).find(), out);
            assertTrue(out.contains(" Data ex. method : " + (rdmaCm ? "rdma_cm" : "Ethernet")), out);
            if (!(passiveServer && out == serverOut)) {
                assertTrue(out.contains(kind.bandwidth() ? "BW average[MB/sec]" : "t_typical[usec]"), out);
            }
        }
        if (ownGid && !options.contains("-x 1")) {
            // An IPv6 GID (rxe's link-local fe80:: one, from the wire interface's MAC) on both nodes:
            // each side's remote GID is the other side's local one.
            assertTrue(gid(node1Out, "remote").startsWith("254:128:00:00:00:00:00:00:"), node1Out);
            assertEquals(gid(node2Out, "local"), gid(node1Out, "remote"), "node 1's peer is node 2:\n" + node1Out
                    + "\nnode 2:\n" + node2Out);
            assertEquals(gid(node1Out, "local"), gid(node2Out, "remote"), "node 2's peer is node 1:\n" + node2Out
                    + "\nnode 1:\n" + node1Out);
            return null;
        }
        assertEquals("10:200:01:02", remoteGidTail(node1Out), "node 1's peer is node 2:\n" + node1Out);
        assertEquals("10:200:01:01", remoteGidTail(node2Out), "node 2's peer is node 1:\n" + node2Out);
        return null;
    }

    /** The GID printed under the first " local address:" or " remote address:" line ({@code side}). */
    static String gid(String out, String side) {
        Matcher m = Pattern.compile(" " + side + " address:.*\\R\\s*GID: ([\\d:]+)").matcher(out);
        return m.find() ? m.group(1) : "no " + side + " GID in the output";
    }

    /** {@code args} with {@code {self}} replaced by {@code address}, the node's own wire address. */
    private static List<String> self(List<String> args, String address) {
        return args.stream().map(a -> a.replace("{self}", address)).toList();
    }

    /** The IPv4 tail of the GID printed under the first " remote address:" line. */
    static String remoteGidTail(String out) {
        Matcher m = Pattern.compile(" remote address:.*\\R\\s*GID: (?:\\d+:){12}(\\d+:\\d+:\\d+:\\d+)").matcher(out);
        return m.find() ? m.group(1) : "no remote GID in the output";
    }

    private static List<String> jrdma(TestKind kind, List<String> common) {
        List<String> a = new ArrayList<>(List.of(kind.command(), "--warm-up", "0"));
        a.addAll(common);
        return a;
    }

    private static List<String> perftest(TestKind kind, List<String> common) {
        List<String> a = new ArrayList<>(List.of("/usr/bin/" + kind.perftestBinary()));
        a.addAll(common);
        return a;
    }

    private static List<String> with(List<String> args, String host) {
        List<String> a = new ArrayList<>(args);
        a.add(host);
        return a;
    }

    /** Waits until this node listens on {@code port} (TCP, or an rdma_cm id), without connecting. */
    private static void awaitListeningHere(int port, boolean rdmaCm, CompletableFuture<Result> server)
            throws Exception {
        Pattern cmListener = Pattern.compile("LISTEN.*:" + port + "\\b");
        String hex = String.format(":%04X", port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            boolean listening;
            if (rdmaCm) {
                Process p = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
                String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor(30, TimeUnit.SECONDS);
                listening = text.lines().anyMatch(l -> cmListener.matcher(l).find());
            } else {
                // A Java server socket is dual-stack: its listener is in tcp6.
                listening = false;
                for (String f : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                    listening |= Files.readAllLines(Path.of(f)).stream().map(l -> l.strip().split("\\s+"))
                            .anyMatch(col -> col.length > 3 && col[1].endsWith(hex) && col[3].equals("0A"));
                }
            }
            if (listening) {
                return;
            }
            if (server.isDone()) {
                fail("the server on node 1 ended before listening: " + server.get().all());
            }
            Thread.sleep(100);
        }
        fail("nothing listens on node 1's port " + port + " after 120 s");
    }
}
