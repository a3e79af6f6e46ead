// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.time.Duration;

/**
 * Runs {@link ManyConnections} {@code runs} times in one JVM and counts the runs that stalled
 * and those that failed otherwise; started by {@code research/many-connections/soak}.
 * Arguments: runs connections rounds messageBytes timeoutSeconds virtual|platform [strategy [channels]],
 * strategy one of threadAware (default), busySpin, yielding, backoff; channels "channels" to give
 * each connection's CQ a completion channel of its own.
 * Exit status: 0 when no run stalled or failed.
 */
public final class ManyConnectionsSoak {
    private ManyConnectionsSoak() {}

    public static void main(String[] args) throws Exception {
        int runs = Integer.parseInt(args[0]);
        WaitStrategy strategy = strategy(args.length > 6 ? args[6] : "threadAware");
        ManyConnections.Settings s = new ManyConnections.Settings(Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                Integer.parseInt(args[3]), Duration.ofSeconds(Long.parseLong(args[4])), args[5].equals("virtual"),
                strategy, args.length > 7 && args[7].equals("channels"), false);
        var address = TestDevices.ipv4Address();
        int stalls = 0;
        int failures = 0;
        for (int run = 1; run <= runs; run++) {
            ManyConnections.Report r = ManyConnections.run(address, s);
            boolean failed = !r.stalled() && (r.clientsPassed() != s.connections() || r.serverPassed() != s.connections()
                    || !r.clientFailures().isEmpty() || r.serverFailures().size() != 1
                    || !r.serverFailures().containsKey(s.connections()) || !r.rejected());
            stalls += r.stalled() ? 1 : 0;
            failures += failed ? 1 : 0;
            System.out.printf("soak run %d/%d: %s%s%n", run, runs, r.stalled() ? "STALL " : failed ? "FAIL " : "ok ", r);
        }
        System.out.printf("soak: %d runs, %d stalls, %d other failures (%d connections, %d rounds, %d B, %s threads,"
                + " %s%s)%n", runs, stalls, failures, s.connections(), s.rounds(), s.messageBytes(),
                s.virtualThreads() ? "virtual" : "platform", s.strategy(), s.channels() ? ", completion channels" : "");
        System.exit(stalls + failures == 0 ? 0 : 1);
    }

    /** The strategy a command line names: threadAware, busySpin, yielding or backoff. */
    static WaitStrategy strategy(String name) {
        return switch (name) {
            case "busySpin" -> WaitStrategy.busySpin();
            case "yielding" -> WaitStrategy.yielding();
            case "backoff" -> WaitStrategy.backoff();
            case "threadAware" -> WaitStrategy.threadAware();
            default -> throw new IllegalArgumentException("no strategy " + name);
        };
    }
}
