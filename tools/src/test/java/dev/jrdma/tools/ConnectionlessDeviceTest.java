// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.collectLines;
import static dev.jrdma.tools.JrdmaRuns.TIMEOUT_S;
import static dev.jrdma.tools.JrdmaRuns.exec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Jvm;
import dev.jrdma.tools.perftest.PerftestFormat;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * --connectionless on one Soft-RoCE device: a send-bw server with no out-of-band peer joins a
 * multicast group and reports every -D seconds until SIGINT stops it. That it receives what a
 * sender to the group delivers is TwoNodeConnectionlessDeviceTest's (a receiver on another node,
 * as in perftest's use; it found the -g sender of the extended post API naming the peer's QPN
 * instead of the multicast QPN, which reaches one attached QP only).
 */
@DeviceTest
class ConnectionlessDeviceTest {
    private static final String GROUP = "ff0e::7:2";
    private static final String GROUP_GID = "GID: 255:14:00:00:00:00:00:00:00:00:00:00:00:07:00:02";
    /** A soak row: 512 bytes, the period's count, no peak, the average, the rate. */
    private static final Pattern ROW = Pattern.compile("^ 512 +(\\d+) +0\\.00 +(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)$");

    /**
     * The multicast header, this side's address only (the group's GID: there is no remote, and
     * nothing listens), rows of zeros while the group is quiet (no stall error at --timeout 5,
     * which the rows outlast), then SIGINT: perftest's "User stopped traffic" after the last row
     * and exit 0.
     */
    @Test
    void aConnectionlessServerReportsWithoutAPeerUntilSigint() throws Exception {
        // Its own JVM, so that the signal reaches only it; perl gives it SIGINT's default
        // disposition (see ReportRunDeviceTest: a background job's child starts with it ignored).
        List<String> command = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!"));
        command.addAll(Jvm.program(Jrdma.class.getName()));
        command.addAll(List.of("send-bw", "-d", DEVICE, "-g", "-M", GROUP, "-s", "512", "--connectionless",
                "--run_infinitely", "-D", "2", "--warm-up", "0", "--timeout", "5"));
        Process listener = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread reader = collectLines(listener, lines);
        try {
            // Four 2 s periods: longer than --timeout 5, which a quiet group must not end.
            await(listener, lines, l -> rows(l).size() >= 4);
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
            assertTrue(rows(lines).stream().allMatch(n -> n == 0), "a quiet group: " + out);
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
