// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.TIMEOUT_S;
import static dev.jrdma.tools.JrdmaRuns.awaitListening;
import static dev.jrdma.tools.JrdmaRuns.exec;
import static dev.jrdma.tools.JrdmaRuns.freePort;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Jvm;
import dev.jrdma.tools.JrdmaRuns.Result;
import dev.jrdma.tools.perftest.PerftestFormat;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * --connectionless on a Soft-RoCE device: a send-bw server with no out-of-band peer joins a
 * multicast group and receives what a sender to that group delivers while an ordinary -g pair
 * runs on the same group, reporting every -D seconds until SIGINT stops it.
 */
@DeviceTest
class ConnectionlessDeviceTest {
    private static final String GROUP = "ff0e::7:2";
    private static final String GROUP_GID = "GID: 255:14:00:00:00:00:00:00:00:00:00:00:00:07:00:02";
    /** A soak row: 512 bytes, the period's count, no peak, the average, the rate. */
    private static final Pattern ROW = Pattern.compile("^ 512 +(\\d+) +0\\.00 +(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)$");
    private static final int ITERS = 2000;

    /**
     * The connectionless server prints the multicast header, its own address only (the group's
     * GID: there is no remote), and rows of what arrived: nothing while the group is quiet (no
     * stall error, no timeout), then part or all of the pair's 2000 datagrams, which the client
     * sends to the group (QPN 0xFFFFFF) for its own server; every QP attached receives them. SIGINT
     * ends it with perftest's "User stopped traffic" after its last row and exit 0.
     */
    @Test
    void aConnectionlessServerReceivesTheGroupsTrafficUntilSigint() throws Exception {
        // Its own JVM, so that the signal reaches only it; perl gives it SIGINT's default
        // disposition (see ReportRunDeviceTest: a background job's child starts with it ignored).
        List<String> command = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!"));
        command.addAll(Jvm.program(Jrdma.class.getName()));
        command.addAll(List.of("send-bw", "-d", DEVICE, "-g", "-M", GROUP, "-s", "512", "--connectionless",
                "--run_infinitely", "-D", "2", "--warm-up", "0", "--timeout", "20"));
        Process listener = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(listener.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    lines.add(l);
                }
            } catch (java.io.IOException e) {
                lines.add("reader: " + e);
            }
        });
        try {
            // Attached and receiving once its first row is printed.
            await(listener, lines, l -> !rows(l).isEmpty());

            int port = freePort();
            List<String> pair = List.of("send-bw", "-d", DEVICE, "-p", Integer.toString(port), "-g", "-M", GROUP,
                    "-s", "512", "-n", Integer.toString(ITERS), "--warm-up", "0", "--timeout", "60");
            CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> jrdma(pair.toArray(String[]::new)));
            awaitListening(port, server);
            List<String> client = new ArrayList<>(pair);
            client.add(ADDRESS);
            Result c = jrdma(client.toArray(String[]::new));
            Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
            assertEquals(0, c.code(), c.all() + "\nserver: " + s.all());
            assertEquals(0, s.code(), s.all());
            assertTrue(listener.isAlive(), "the connectionless server ended:\n" + String.join("\n", lines));

            // The datagrams arrived here too: a row with a count, printed at the end of its period.
            await(listener, lines, l -> rows(l).stream().anyMatch(n -> n > 0));
            assertEquals("", exec("kill", "-INT", Long.toString(listener.pid())));
            assertTrue(listener.waitFor(120, TimeUnit.SECONDS), "no end after SIGINT:\n" + String.join("\n", lines));
            reader.join(TimeUnit.SECONDS.toMillis(30));
            String out = String.join("\n", lines);
            assertEquals(0, listener.exitValue(), out);

            assertTrue(out.contains("Send BW Multicast Test\n MultiCast runs on UD!\n"), out);
            assertTrue(out.contains(" Connection type : UD"), out);
            assertEquals(1, lines.stream().filter(l -> l.startsWith(" local address: ")).count(), out);
            assertFalse(out.contains(" remote address: "), "no peer: " + out);
            assertTrue(out.contains(GROUP_GID), "the group's GID is announced: " + out);
            assertFalse(out.contains("Waiting for client"), "nothing listens: " + out);
            long received = rows(lines).stream().mapToLong(Long::longValue).sum();
            assertTrue(received > 0 && received <= ITERS, "received " + received + " of " + ITERS + ": " + out);
            int stopped = lines.indexOf(" User stopped traffic");
            assertTrue(stopped >= 2 && ROW.matcher(lines.get(stopped - 2)).matches(), out);
            assertEquals(PerftestFormat.LINE, lines.getLast(), out);
        } finally {
            listener.destroyForcibly();
        }
    }

    /** Waits (bounded) until {@code done} holds for the lines so far; fails if the process ends first. */
    private static void await(Process p, List<String> lines, Predicate<List<String>> done) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!done.test(snapshot(lines))) {
            if (System.nanoTime() - deadline > 0 || !p.isAlive()) {
                fail("connectionless server (alive: " + p.isAlive() + "):\n" + String.join("\n", snapshot(lines)));
            }
            Thread.sleep(200);
        }
    }

    private static List<String> snapshot(List<String> lines) {
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }

    /** The counts of the soak rows in {@code lines}. */
    private static List<Long> rows(List<String> lines) {
        List<Long> counts = new ArrayList<>();
        for (String l : snapshot(lines)) {
            Matcher m = ROW.matcher(l);
            if (m.matches()) {
                counts.add(Long.parseLong(m.group(1)));
            }
        }
        return counts;
    }
}
