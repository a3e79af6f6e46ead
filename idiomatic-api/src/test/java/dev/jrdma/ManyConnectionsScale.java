// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Issue #38's scale figure: runs {@link ManyConnections} at growing connection counts and prints
 * one Markdown row per run (docs/performance.md, "Many connections"); started by
 * {@code research/many-connections/scale}. Stops growing at the first count that fails: the
 * failure's messages name the verb and errno of the limit reached. Prints the device's and the
 * process's limits first.
 *
 * <p>Arguments: threads (virtual|platform) strategy (threadAware|busySpin|yielding|backoff)
 * channels (channels|none) rounds messageBytes timeoutSeconds runsPerCount hold (hold|none)
 * count...; with hold every client waits until all are connected, so that all N connections
 * (2N ends: both sides are in this process) are open at once when the figures are taken.
 */
public final class ManyConnectionsScale {
    private ManyConnectionsScale() {}

    public static void main(String[] args) throws Exception {
        boolean virtual = args[0].equals("virtual");
        WaitStrategy strategy = ManyConnectionsSoak.strategy(args[1]);
        boolean channels = args[2].equals("channels");
        int rounds = Integer.parseInt(args[3]);
        int bytes = Integer.parseInt(args[4]);
        Duration timeout = Duration.ofSeconds(Long.parseLong(args[5]));
        int runs = Integer.parseInt(args[6]);
        boolean hold = args[7].equals("hold");
        var address = TestDevices.ipv4Address();
        try (Context context = TestDevices.device().open()) {
            DeviceAttributes a = context.queryDevice();
            System.out.printf("scale: %s limits: %d QPs, %d CQs, %d MRs, %d PDs%n", context.name(), a.maxQp(),
                    a.maxCq(), a.maxMr(), a.maxPd());
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files") || line.startsWith("Max locked memory")
                    || line.startsWith("Max processes")) {
                System.out.println("scale: " + line.replaceAll("\\s{2,}", " | "));
            }
        }
        System.out.printf("scale: %s threads, %s, %s, %d round trips of %d B, %s per wait%s%n",
                virtual ? "virtual" : "platform", strategy, channels ? "a completion channel per CQ" : "no channels",
                rounds, bytes, timeout, hold ? ", all connections held open at once" : "");
        System.out.println("| threads | wait | N | run | connected (s) | connections/s | done (s) | round trips/s"
                + " | fds/conn | RSS KiB/conn | memory KiB/conn | result |");
        System.out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
        for (int i = 8; i < args.length; i++) {
            int n = Integer.parseInt(args[i]);
            ManyConnections.Settings s = new ManyConnections.Settings(n, rounds, bytes, timeout, virtual, strategy,
                    channels, hold);
            boolean failed = false;
            for (int run = 1; run <= runs; run++) {
                ManyConnections.Report r = ManyConnections.run(address, s);
                boolean passed = !r.stalled() && r.clientsPassed() == n && r.serverPassed() == n
                        && r.clientFailures().isEmpty() && r.serverFailures().size() == 1
                        && r.serverFailures().containsKey(n) && r.rejected();
                double connected = r.connectedNanos() / 1e9;
                double done = r.echoedNanos() / 1e9;
                int ends = 2 * n;   // both ends of every connection are in this process
                System.out.printf("| %s | %s%s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        virtual ? "virtual" : "platform", args[1], channels ? " + channel" : "", n, run,
                        r.connectedNanos() < 0 ? "-" : String.format("%.2f", connected),
                        r.connectedNanos() < 0 ? "-" : String.format("%.1f", n / connected),
                        r.echoedNanos() < 0 ? "-" : String.format("%.2f", done),
                        r.echoedNanos() < 0 ? "-" : String.format("%.0f", (double) n * rounds / done),
                        r.connectedNanos() < 0 ? "-" : String.format("%.2f", (double) r.fds() / ends),
                        r.connectedNanos() < 0 ? "-" : String.format("%.0f", (double) r.rssKib() / ends),
                        r.connectedNanos() < 0 ? "-" : String.format("%.0f", (double) r.systemKib() / ends),
                        passed ? "passed" : (r.stalled() ? "STALLED: " : "FAILED: ") + r.clientsPassed() + " of " + n
                                + " clients, " + r.serverPassed() + " server connections");
                if (!passed) {
                    failed = true;
                    System.out.println("scale: failures at " + n + " connections: " + distinct(r.clientFailures())
                            + " / server: " + distinct(r.serverFailures()));
                }
            }
            if (failed) {
                System.out.println("scale: stopped growing at " + n + " connections");
                break;
            }
        }
        System.exit(0);
    }

    /** The distinct messages of {@code failures}, each with how many connections it ended. */
    private static Map<String, Long> distinct(Map<Integer, String> failures) {
        return failures.values().stream().map(m -> m.replaceAll("0x[0-9a-f]+|handle \\d+|port \\d+|fd \\d+", "#"))
                .collect(java.util.stream.Collectors.groupingBy(m -> m, java.util.TreeMap::new,
                        java.util.stream.Collectors.counting()));
    }
}
