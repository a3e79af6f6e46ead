// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.collectLines;
import static dev.jrdma.tools.JrdmaRuns.TIMEOUT_S;
import static dev.jrdma.tools.JrdmaRuns.awaitListening;
import static dev.jrdma.tools.JrdmaRuns.exec;
import static dev.jrdma.tools.JrdmaRuns.freePort;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Jvm;
import dev.jrdma.tools.JrdmaRuns.Result;
import dev.jrdma.tools.perftest.CpuClock;
import dev.jrdma.tools.perftest.PerftestFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The report and run-control options (#36) on a Soft-RoCE device: a --run_infinitely soak
 * stopped by SIGINT, -U/-H/-C's sample lists, --reversed's direction on the wire (the QPs' PSNs)
 * with --out_json_file and --wait_destroy, -w's verdict and -W's counter.
 */
@DeviceTest
class ReportRunDeviceTest {
    /**
     * A thread per side run in this JVM: the common pool has one thread on a 2-CPU VM, where a
     * client queued behind its server would never start.
     */
    private static final ExecutorService SIDES = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "jrdma-side");
        t.setDaemon(true);
        return t;
    });
    /** A row of the soak: 65536 bytes, its count, no peak, the average, the rate. */
    /** --reversed's --wait_destroy: how long its QPs stay for `rdma resource show` (slow on a loaded host). */
    private static final int WAIT_DESTROY_S = 60;
    private static final Pattern SOAK_ROW = Pattern.compile("^ 65536 +(\\d+) +0\\.00 +(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)$");

    /**
     * The acceptance: a client soaking with -D 2 reports, in its own process, is stopped
     * by SIGINT after two reports; it prints perftest's "User stopped traffic" after its last
     * complete row and the closing line, and exits 0. The write-bw server, passive, then prints
     * "Client closed connection"; the send-bw server, which receives and reports every period
     * too, sees the client's next exchange message arrive at a period's end and ends its loop.
     * Both exit 0. Every wait is bounded.
     */
    @ParameterizedTest
    @ValueSource(strings = {"write-bw", "send-bw"})
    void aSoakRunIsStoppedCleanlyBySigintWithItsLastReportPrinted(String test) throws Exception {
        int port = freePort();
        List<String> common = List.of(test, "-d", DEVICE, "-x", "1", "-p", Integer.toString(port),
                "--run_infinitely", "-D", "2", "--warm-up", "0");
        // The server waits for the client's JVM to start (15-35 s under emulation, more on a loaded host).
        CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> {
            List<String> a = new ArrayList<>(common);
            a.addAll(List.of("--timeout", Long.toString(TIMEOUT_S)));
            return jrdma(a.toArray(String[]::new));
        }, SIDES);
        awaitListening(port, server);
        // The client in a JVM of its own, so that the signal reaches only it. perl (perl-base is
        // essential in Debian) gives it SIGINT's default disposition, as a terminal's foreground
        // job has: a program started from a non-interactive background job inherits SIGINT
        // ignored, and a JVM does not catch a signal it starts with ignored.
        List<String> command = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!"));
        command.addAll(Jvm.program(Jrdma.class.getName()));
        command.addAll(common);
        command.add(ADDRESS);
        Process client = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        Thread reader = collectLines(client, lines);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (rows(lines).size() < 2) {
                if (System.nanoTime() - deadline > 0 || !client.isAlive()) {
                    fail("no two soak reports from the client (alive: " + client.isAlive() + "):\n"
                            + String.join("\n", lines));
                }
                Thread.sleep(200);
            }
            assertEquals("", exec("kill", "-INT", Long.toString(client.pid())));
            assertTrue(client.waitFor(120, TimeUnit.SECONDS), "the client did not end after SIGINT:\n"
                    + String.join("\n", lines));
            reader.join(TimeUnit.SECONDS.toMillis(30));
            String out = String.join("\n", lines);
            assertEquals(0, client.exitValue(), out);
            List<long[]> rows = rows(lines);
            assertTrue(rows.size() >= 2, out);
            for (long[] r : rows) {
                assertTrue(r[0] > 0, "every period moved messages: " + out);
            }
            // perftest's end of a stopped soak: the last row, an empty line, the notice, the closing line.
            int stopped = lines.indexOf(" User stopped traffic");
            assertTrue(stopped >= 2, out);
            assertEquals("", lines.get(stopped - 1), out);
            assertTrue(SOAK_ROW.matcher(lines.get(stopped - 2)).matches(), "the last report is complete: " + out);
            assertEquals(PerftestFormat.LINE, lines.getLast(), out);

            Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
            assertEquals(0, s.code(), s.all());
            if (test.equals("write-bw")) {
                assertTrue(s.out().contains("\n Client closed connection\n" + PerftestFormat.LINE + "\n"), s.out());
            } else {
                List<long[]> serverRows = rows(List.of(s.out().split("\n")));
                assertTrue(serverRows.size() >= 2 && serverRows.stream().allMatch(r -> r[0] > 0), s.out());
                assertTrue(s.out().endsWith("\n" + PerftestFormat.LINE + "\n"), s.out());
                assertTrue(!s.out().contains("User stopped traffic"), "the server was not signalled: " + s.out());
            }
        } finally {
            client.destroyForcibly();
        }
    }

    /** The soak's rows in {@code lines}: each as {iterations}. */
    private static List<long[]> rows(List<String> lines) {
        List<long[]> rows = new ArrayList<>();
        synchronized (lines) {
            for (String l : lines) {
                Matcher m = SOAK_ROW.matcher(l);
                if (m.matches()) {
                    rows.add(new long[] {Long.parseLong(m.group(1))});
                }
            }
        }
        return rows;
    }

    /**
     * -U lists the n-1 intervals as measured, -H the n-3 kept ones sorted, each under perftest's
     * "#, usec" line, and the table header follows again before the row; with -C the lists and
     * the row are in cycles ("#, cycles"), the row's t_min being the smallest listed interval.
     */
    @Test
    void sampleListsBeforeTheLatencyRow() throws Exception {
        int port = freePort();
        List<String> common = List.of("send-lat", "-d", DEVICE, "-x", "1", "-p", Integer.toString(port), "-n", "50",
                "--warm-up", "0");
        CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> {
            List<String> a = new ArrayList<>(common);
            a.addAll(List.of("-U", "-H"));
            return jrdma(a.toArray(String[]::new));
        }, SIDES);
        awaitListening(port, server);
        List<String> a = new ArrayList<>(common);
        a.addAll(List.of("-C", "-U", ADDRESS));
        Result c = jrdma(a.toArray(String[]::new));
        Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(0, c.code(), c.all() + "\nserver: " + s.all());
        assertEquals(0, s.code(), s.all());

        List<List<Double>> serverLists = lists(s.out(), "usec");
        assertEquals(2, serverLists.size(), s.out());
        assertEquals(49, serverLists.get(0).size(), "-U: one line per interval of 50 iterations: " + s.out());
        assertEquals(47, serverLists.get(1).size(), "-H: the kept intervals: " + s.out());
        List<Double> sorted = new ArrayList<>(serverLists.get(1));
        Collections.sort(sorted);
        assertEquals(sorted, serverLists.get(1), "-H is sorted");
        List<Double> unsorted = new ArrayList<>(serverLists.get(0));
        Collections.sort(unsorted);
        assertEquals(unsorted.subList(0, 47), sorted, "-H's are -U's without the two largest");
        assertEquals(2, count(s.out(), PerftestFormat.LAT_HEADER + "\n"), "the header again after the lists");

        List<List<Double>> clientLists = lists(c.out(), "cycles");
        assertEquals(1, clientLists.size(), c.out());
        assertEquals(49, clientLists.getFirst().size(), c.out());
        double tMin = Double.parseDouble(rowFields(c.out())[2]);
        double listMin = Collections.min(clientLists.getFirst());
        assertEquals(listMin, tMin, listMin * 1e-4 + 0.01, "t_min is the smallest interval, in the same unit");
        assertTrue(tMin >= CpuClock.mhz() / 2, "cycles: a round trip takes far more than 0.5 us: " + c.out());
    }

    private static List<List<Double>> lists(String out, String unit) {
        List<List<Double>> lists = new ArrayList<>();
        List<Double> current = null;
        for (String l : out.split("\n")) {
            if (l.equals("#, " + unit)) {
                current = new ArrayList<>();
                lists.add(current);
            } else if (current != null && l.matches("\\d+, \\S+")) {
                assertEquals(current.size() + 1, Integer.parseInt(l.substring(0, l.indexOf(','))), out);
                current.add(Double.parseDouble(l.substring(l.indexOf(' ') + 1)));
            } else {
                current = null;
            }
        }
        return lists;
    }

    /** The whitespace-separated fields of the 2-byte latency row. */
    private static String[] rowFields(String out) {
        for (String l : out.split("\n")) {
            if (l.startsWith(" 2 ")) {
                return l.strip().split("\\s+");
            }
        }
        throw new AssertionError("no row in " + out);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    /**
     * --reversed: the write-bw server (no host argument) sends and the client only receives,
     * read from the QPs themselves while --wait_destroy keeps them: the server's send PSN has
     * advanced by a packet per MTU of every message, the client's not at all and its receive
     * PSN by as much. The server's --out_json_file is written before the wait and is valid JSON
     * with the run's row, and its text report is printed as usual.
     */
    @Test
    void reversedSendsFromTheServerAndOutJsonFileIsWritten(@TempDir Path dir) throws Exception {
        int port = freePort();
        Path json = dir.resolve("server.json");
        List<String> common = List.of("write-bw", "-d", DEVICE, "-x", "1", "-p", Integer.toString(port), "-s", "4096",
                "-m", "1024", "-n", "200", "--reversed", "--wait_destroy", Integer.toString(WAIT_DESTROY_S),
                "--warm-up", "0");
        CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> {
            List<String> a = new ArrayList<>(common);
            a.addAll(List.of("--out_json", "--out_json_file", json.toString()));
            return jrdma(a.toArray(String[]::new));
        }, SIDES);
        awaitListening(port, server);
        CompletableFuture<Result> client = CompletableFuture.supplyAsync(() -> {
            List<String> a = new ArrayList<>(common);
            a.add(ADDRESS);
            return jrdma(a.toArray(String[]::new));
        }, SIDES);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (!Files.exists(json) || Files.size(json) == 0) {
            if (System.nanoTime() - deadline > 0 || server.isDone() || client.isDone()) {
                fail("no --out_json_file before the wait: server " + (server.isDone() ? server.get().all() : "running")
                        + "\nclient " + (client.isDone() ? client.get().all() : "running"));
            }
            Thread.sleep(100);
        }
        long seen = System.nanoTime();
        Thread.sleep(500);   // the file is complete once written; give the other side its own finish
        JsonNode doc = new ObjectMapper().readTree(json.toFile());   // valid JSON, or this throws
        JsonNode local = doc.path("endpoints").path("local").get(0);
        JsonNode remote = doc.path("endpoints").path("remote").get(0);
        String qps = exec("rdma", "resource", "show", "qp");
        String when = String.format(" (%.1f s after the file appeared)", (System.nanoTime() - seen) / 1e9);
        long[] serverQp = psns(qps, local.path("qpn").asLong(), when);
        long[] clientQp = psns(qps, remote.path("qpn").asLong(), when);
        Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
        Result c = client.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(0, s.code(), s.all() + "\nclient: " + c.all());
        assertEquals(0, c.code(), c.all());

        long packets = 200 * 4;   // 4 KiB messages over a 1 KiB path MTU
        assertEquals(packets, (serverQp[0] - local.path("psn").asLong()) & 0xffffff, "the server sent: " + s.out());
        assertEquals(0, (clientQp[0] - remote.path("psn").asLong()) & 0xffffff, "the client sent nothing");
        assertEquals(packets, (clientQp[1] - local.path("psn").asLong()) & 0xffffff, "the client received");
        JsonNode row = doc.path("bandwidth").get(0);
        assertEquals(4096, row.path("bytes").asLong(), doc.toString());
        assertEquals(200, row.path("iterations").asLong(), doc.toString());
        assertTrue(s.out().contains(" TX depth        : "), "the sending server's header: " + s.out());
        assertTrue(!c.out().contains(" TX depth        : "), "the receiving client's: " + c.out());
        for (Result r : List.of(s, c)) {
            assertTrue(r.out().contains("BW average[MB/sec]") && r.out().contains("\n 4096       200 "), r.out());
            assertTrue(r.out().contains(" Waiting " + WAIT_DESTROY_S + " seconds before releasing resources...\n"),
                    r.out());
        }
    }

    /** A QP's {send PSN, receive PSN} from the output of `rdma resource show qp`. */
    private static long[] psns(String qps, long qpn, String when) {
        for (String line : qps.split("\n")) {
            if (line.contains(" lqpn " + qpn + " ")) {
                Matcher sq = Pattern.compile("sq-psn (\\d+)").matcher(line);
                Matcher rq = Pattern.compile("rq-psn (\\d+)").matcher(line);
                assertTrue(sq.find() && rq.find(), "QP " + qpn + ": " + line);
                return new long[] {Long.parseLong(sq.group(1)), Long.parseLong(rq.group(1))};
            }
        }
        throw new AssertionError("no QP " + qpn + when + " in:\n" + qps);
    }

    /**
     * -w: a run whose BW average is below the limit ends with perftest's error line and exit 1
     * after its report, on the client and on the passive server that prints the client's row;
     * a limit of 0 passes.
     */
    @Test
    void limitBwFailsARunBelowIt() throws Exception {
        for (String limit : List.of("1000000000", "0")) {
            int port = freePort();
            List<String> common = List.of("write-bw", "-d", DEVICE, "-x", "1", "-p", Integer.toString(port), "-n",
                    "100", "-w", limit, "--warm-up", "0");
            CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> jrdma(common.toArray(String[]::new)),
                    SIDES);
            awaitListening(port, server);
            List<String> a = new ArrayList<>(common);
            a.addAll(List.of("-W", "hw_counters/sent_pkts", ADDRESS));
            Result c = jrdma(a.toArray(String[]::new));
            Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
            boolean below = !limit.equals("0");
            for (Result r : List.of(c, s)) {
                assertEquals(below ? 1 : 0, r.code(), r.all());
                assertTrue(r.out().contains("BW average[MB/sec]") && r.out().contains("\n 65536      100 "), r.all());
                assertEquals(below, r.err().contains("Error: BW result is below bw limit"), r.all());
            }
            // -W: after the row, the counter's change since the run started: at least the 100
            // messages' 64 packets each (the one rxe device also counts the server's ACKs).
            Matcher m = Pattern.compile("\n\thw_counters/sent_pkts=(\\d+)\n\n").matcher(c.out());
            assertTrue(m.find(), c.out());
            assertTrue(Long.parseLong(m.group(1)) >= 100 * 64, c.out());
        }
    }
}
