// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.TIMEOUT_S;
import static dev.jrdma.tools.JrdmaRuns.awaitListening;
import static dev.jrdma.tools.JrdmaRuns.freePort;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.testing.Jvm;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * --connectionless across a wire: a send-bw receiver on node 2 with no out-of-band peer joins a
 * multicast group; an ordinary -g pair on node 1 sends to that group, and the datagrams that
 * cross the wire arrive at node 2's QP as well, reported every -D seconds until SIGINT.
 */
@TwoNodeTest
class TwoNodeConnectionlessDeviceTest {
    private static final String GROUP = "ff0e::7:3";
    private static final Pattern ROW = Pattern.compile("(?m)^ 512 +(\\d+) +0\\.00 +\\d+\\.\\d+\\s+\\d+\\.\\d+$");
    private static final int ITERS = 2000;

    @Test
    void aConnectionlessReceiverOnNode2GetsTheGroupsDatagrams() throws Exception {
        Path log = Files.createTempFile("connectionless", ".out");
        Path pid = Path.of("/tmp/jrdma-connectionless-" + ProcessHandle.current().pid() + ".pid");
        // perl gives the JVM SIGINT's default disposition (node 2's agent may start it ignored);
        // the shell writes the pid the signal goes to (exec keeps it).
        List<String> listener = new ArrayList<>(List.of("bash", "-c", "echo $$ > " + pid
                + "; exec perl -e '$SIG{INT} = \"DEFAULT\"; exec @ARGV or die $!' \"$@\"", "connectionless"));
        listener.addAll(Jvm.program(Jrdma.class.getName()));
        listener.addAll(List.of("send-bw", "-d", TwoNodes.DEVICE, "-g", "-M", GROUP, "-s", "512", "--connectionless",
                "--run_infinitely", "-D", "2", "--warm-up", "0"));
        Process p = TwoNodes.start(listener, log);
        try {
            await(p, log, false);   // attached and receiving once its first row is printed

            int port = freePort();
            List<String> pair = List.of("send-bw", "-d", TwoNodes.DEVICE, "-p", Integer.toString(port), "-g", "-M",
                    GROUP, "-s", "512", "-n", Integer.toString(ITERS), "--warm-up", "0", "--timeout", "60");
            CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> jrdma(pair.toArray(String[]::new)));
            awaitListening(port, server);
            List<String> client = new ArrayList<>(pair);
            client.add(TwoNodes.NODE1);
            Result c = jrdma(client.toArray(String[]::new));
            Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
            assertEquals(0, c.code(), c.all() + "\nserver: " + s.all());
            assertEquals(0, s.code(), s.all());

            await(p, log, true);   // a row with datagrams in it
            TwoNodes.Result kill = TwoNodes.run(30, "bash", "-c", "kill -INT $(cat " + pid + ")");
            assertEquals(0, kill.code(), kill.out());
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no end after SIGINT:\n" + read(log));
            String out = read(log);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("Send BW Multicast Test\n MultiCast runs on UD!\n"), out);
            assertFalse(out.contains(" remote address: "), "no peer: " + out);
            assertTrue(out.contains("GID: 255:14:00:00:00:00:00:00:00:00:00:00:00:07:00:03"), out);
            long received = counts(out).stream().mapToLong(Long::longValue).sum();
            assertTrue(received > 0 && received <= ITERS, "received " + received + " of " + ITERS + ": " + out);
            assertTrue(out.contains("\n User stopped traffic\n"), out);
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    /** Waits (bounded) for a row, or with {@code datagrams} a row with a count above 0. */
    private static void await(Process p, Path log, boolean datagrams) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (true) {
            List<Long> rows = counts(read(log));
            if (datagrams ? rows.stream().anyMatch(n -> n > 0) : !rows.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0 || !p.isAlive()) {
                fail("connectionless receiver on node 2 (alive: " + p.isAlive() + "):\n" + read(log));
            }
            Thread.sleep(500);
        }
    }

    private static String read(Path log) throws java.io.IOException {
        return Files.readString(log, StandardCharsets.ISO_8859_1);
    }

    private static List<Long> counts(String out) {
        List<Long> counts = new ArrayList<>();
        Matcher m = ROW.matcher(out);
        while (m.find()) {
            counts.add(Long.parseLong(m.group(1)));
        }
        return counts;
    }
}
