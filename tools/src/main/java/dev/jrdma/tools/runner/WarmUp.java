// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Mtu;
import dev.jrdma.QueuePair;
import dev.jrdma.tools.perftest.CpuAffinity;
import dev.jrdma.tools.perftest.PerftestSchedule;
import dev.jrdma.tools.perftest.PerftestSettings;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * jrdma's own warm-up (--warm-up): a JVM runs a loop interpreted, then C1-compiled, and only
 * after thousands of iterations C2-compiled; a C tool starts compiled. So before the peer
 * connects (the server: before it listens), this runs the same test loops on a loopback pair of
 * sides on this device (a client and a server twin, each with its own buffer, CQs and QPs,
 * connected to each other) in rounds of --warm-up iterations, until a round in which the JIT
 * completed no compilation or, from the third round on, one no faster than the best before it,
 * either with nothing left in the JIT's queues at the round's end (at most 10 rounds, 20 s or
 * half the --timeout), and then waits for the JIT to become idle. Nothing of it reaches the
 * peer, so the protocol stays perftest's. Under qemu TCG scripts/jrdma also changes two JIT
 * settings (see there). A failure only skips the rest of the warm-up (with a line on stderr):
 * the measurement then shows what is wrong.
 */
final class WarmUp {
    /** Warm-up rounds at most; each round is --warm-up iterations. */
    private static final int ROUNDS = 10;
    /**
     * Iterations of one warm-up run: short runs, many of them, so the JIT sees the test's loop
     * method called often and compiles it whole (an OSR compilation of a single long run is
     * replaced again when the measurement calls the method anew).
     */
    private static final int RUN_ITERS = 20;
    /**
     * The same for the bandwidth tests. Their loop posts a run's messages in a few passes, so a
     * run of 20 adds only a handful of counts toward C2's threshold: with runs of 20, write-bw's
     * loop was still interpreted when the measurement began (-XX:+PrintCompilation, TCG). Runs
     * of 4 (tx depth 2, a completion every 2nd) call it five times as often per round.
     */
    private static final int BW_RUN_ITERS = 4;
    /** Rounds at least: the first one also runs whatever the JVM still compiles from its start. */
    private static final int MIN_ROUNDS = 3;
    /** How long past the warm-up's time limit it may still wait for the JIT to finish. */
    private static final long JIT_WAIT_NANOS = 5_000_000_000L;
    /**
     * The warm-up's time limit, and at most half the --timeout (the peer may be waiting). The
     * system property jrdma.warmUp.maxSeconds raises it for a measurement under instrumentation:
     * under scripts/perf-gate's TCG plugin one round took the whole 20 s and the loops of send_lat
     * and write_bw were still interpreted when their measurement began.
     */
    private static final long MAX_NANOS = Long.getLong("jrdma.warmUp.maxSeconds", 20) * 1_000_000_000L;
    /**
     * After a warm-up, how long {@link #settle} may wait for the JIT to go idle again (at most a
     * quarter of the --timeout): the peer waits for the sync that follows.
     */
    private static final long SETTLE_MAX_NANOS = 2_000_000_000L;
    /** A twin's empty polls between looks at the clock, minus one (see Completions.spinMask). */
    private static final int TWIN_SPIN_MASK = 3;

    private final Side side;
    private final Console console;
    /** The rounds it ran and how long it took (0 when it did not run). */
    int rounds;
    long nanos;
    /**
     * Whether the JIT had settled when the warm-up handed over: its last round added no compile
     * time or was no faster than the best (the code the measurement runs is what ran), and
     * HotSpot's compile queues were empty at the end. False when it stopped at its round or time
     * limit with the JIT still at work, or found a busy JIT after connecting: the measurement may
     * then begin in interpreted or half-compiled code, and the report says so (stderr, --json
     * warm_up_settled) instead of passing it on silently. True when it did not run.
     */
    boolean settled = true;
    /** The CPUs the warm-up's threads could use (its report; null when it did not run). */
    volatile String cpus;

    WarmUp(Side side, Console console) {
        this.side = side;
        this.console = console;
    }

    /** Runs the warm-up unless it is off (--warm-up 0), the run is timed (-D) or this side is passive. */
    void run(Mtu myMtu) {
        PerftestSettings s = side.s;
        if (s.warmUpIters() == 0 || s.durationSeconds() > 0 || !runsTest(s, s.client())) {
            return;
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long limit = Math.min(MAX_NANOS, s.timeout().toNanos() / 2);
        long end = System.nanoTime() + limit;
        // Up to ~25 s under emulation before the server listens or the client connects: say why.
        // stderr, so perftest's report and --json on stdout stay as they are.
        console.error(notice(side.session.context().name(), limit));
        // The same side of the inline limit as the measurement (another branch in the request), small
        // otherwise: the message size changes the device's work, not the Java code.
        long first = side.session.sizes() == null ? s.sizes().getFirst() : side.session.sizes().getFirst();
        long size = Math.min(first, Math.max(64, side.session.inlineSize() + 1L));
        long best = Long.MAX_VALUE;
        long begin = System.nanoTime();
        // The first Compiler.queue call builds the DiagnosticCommand MBean (class loading, JFR's
        // .jfc files parsed: ~0.5 s of fresh code under TCG). Made at the end, its compilations
        // ran during the measurement; made here, the rounds below absorb them.
        awaitJitIdle(begin);
        try {
            for (int round = 1; round <= ROUNDS; round++) {
                long compiled = timed ? jit.getTotalCompilationTime() : 0;
                long start = System.nanoTime();
                try {
                    round(myMtu, size, end);
                } catch (IOException | RuntimeException e) {
                    console.error("warm-up on a loopback QP pair of " + side.session.context().name()
                            + " failed, measuring without the rest of it: " + e.getMessage());
                    settled = false;
                    return;
                }
                rounds = round;
                long took = System.nanoTime() - start;
                // Done when the JIT finished nothing during the round, or when the round was no faster
                // than the best before it (the code the measurement will run is what ran) - and in
                // either case nothing is queued or being compiled. A bandwidth round takes as long
                // interpreted as compiled (the device sets its pace), and C2 takes ~1 s per method
                // under TCG, so without that check write-bw stopped after three rounds with its
                // completion loop still interpreted, and compiled it during the measurement.
                boolean quiet = timed && jit.getTotalCompilationTime() == compiled;
                boolean steady = round >= MIN_ROUNDS && took * 100 > best * 97;
                settled = (quiet || steady) && jitIdleNow();
                if (settled || System.nanoTime() - end > 0) {
                    break;
                }
                best = Math.min(best, took);
            }
            boolean idle = awaitJitIdle(end + JIT_WAIT_NANOS);
            settled &= idle;
            if (!settled) {
                console.error("warm-up: stopped after " + rounds + " rounds (its limit is " + ROUNDS + " rounds, "
                        + Math.min(MAX_NANOS, s.timeout().toNanos() / 2) / 1_000_000_000L + " s) with the JIT "
                        + (idle ? "still compiling in its last round" : "still busy")
                        + ": the measurement may begin in code that is not compiled yet");
            }
        } finally {
            nanos = System.nanoTime() - begin;
        }
    }

    /** The line that opens a warm-up, after the command's name. */
    static String notice(String device, long limitNanos) {
        return "warm-up: warming up on a loopback QP pair of " + device + " until the JIT has compiled the test"
                + " (at most " + (limitNanos + JIT_WAIT_NANOS) / 1_000_000_000L + " s; --warm-up 0 skips this)";
    }

    /**
     * After a warm-up, before the sync that starts the run: the connection's own first-time code
     * (the exchange, QP transitions, the header) queued compilations, and a compiler thread at
     * work during the measurement takes a CPU from it; so wait for an idle JIT once more.
     */
    void settle() {
        if (rounds > 0 && !awaitJitIdle(System.nanoTime() + Math.min(SETTLE_MAX_NANOS, side.s.timeout().toNanos() / 4))) {
            settled = false;
            console.error("warm-up: the JIT was still busy after connecting: the measurement may begin in code "
                    + "that is not compiled yet");
        }
    }

    /** Whether the side runs the measurement (a passive write/read/atomic server does not). */
    private static boolean runsTest(PerftestSettings s, boolean client) {
        return PerftestSchedule.of(s.kind(), client, 1, PerftestSchedule.Options.of(s))
                .contains(PerftestSchedule.Step.RUN);
    }

    private int runIters() {
        // -l, --recv_post_list: runs of whole lists, with a send queue (half a run) that holds one
        return side.kind.bandwidth() ? BW_RUN_ITERS * PostResources.listMultiple(side.s.posting()) : RUN_ITERS;
    }

    /** A twin: this side's device choices, its own resources, settled to run --warm-up's short runs. */
    private Side twin(boolean client, Mtu myMtu, long size) {
        Side t = new Side(side.s.forWarmUp(client, size, runIters()), TWIN_SPIN_MASK);
        t.session = side.session.agreed(myMtu, List.of(size));
        return t;
    }

    /** One round: a fresh loopback pair, --warm-up iterations in runs of {@link #RUN_ITERS} ({@link #BW_RUN_ITERS}). */
    private void round(Mtu myMtu, long size, long end) throws IOException {
        Side client = twin(true, myMtu, size);
        Side server = twin(false, myMtu, size);
        boolean stopped = true;
        try {
            client.createResources(side.session.context(), null);
            server.createResources(side.session.context(), null);
            client.connectQueuePairs(List.copyOf(server.records.mine));
            server.connectQueuePairs(List.copyOf(client.records.mine));
            client.postReceives(0);
            server.postReceives(0);
            // The first failure is the cause; the other twin's is usually its consequence (ERR, broken barrier).
            AtomicReference<IOException> failure = new AtomicReference<>();
            Thread[] threads = new Thread[2];
            Side[] twins = {client, server};
            boolean[] runs = {runsTest(side.s, true), runsTest(side.s, false)};
            // Both running twins start each run together: the receives and buffers of the one are
            // re-armed before the other sends or writes again.
            // The barrier's action decides for both whether time is up, so they stop after the same run.
            boolean[] stop = {false};
            CyclicBarrier start = new CyclicBarrier(runs[1] ? 2 : 1, () -> stop[0] = System.nanoTime() - end > 0);
            int count = (int) Math.max(1, side.s.warmUpIters() / runIters());
            Duration timeout = client.s.timeout();
            for (int i = 0; i < 2; i++) {
                int k = i;
                if (!runs[k]) {
                    continue;
                }
                threads[k] = Thread.ofPlatform().daemon().name("jrdma-warm-up-" + (k == 0 ? "client" : "server"))
                        .start(() -> {
                            int r = 0;
                            if (k == 0) {
                                cpus = threadCpus();
                            }
                            try {
                                for (; r < count; r++) {
                                    start.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
                                    if (stop[0]) {
                                        break;
                                    }
                                    Side t = twins[k];
                                    Measurement.run(t, size, Measurement.rule(t, null));
                                    t.rearm();
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, new IOException("the " + (k == 0 ? "client" : "server")
                                        + " side, run " + (r + 1) + " of " + count + ": " + e.getMessage(), e));
                                // The other twin may wait for this one: ERR flushes its work requests,
                                // the broken barrier ends its wait for the next run.
                                start.reset();
                                client.qps.forEach(QueuePair::toError);
                                server.qps.forEach(QueuePair::toError);
                            }
                        });
            }
            // Every wait inside a run ends within the timeout, and no run starts after the end.
            long deadline = Math.max(System.nanoTime(), end) + 2 * timeout.toNanos();
            for (Thread t : threads) {
                if (t != null && !t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    stopped = false;
                    throw new IOException("the loopback runs did not end in time");
                }
            }
            IOException first = failure.get();
            if (first != null) {
                throw first;
            }
        } catch (InterruptedException e) {
            stopped = false;
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            if (stopped) {   // never close what a still running twin uses: the process exit frees it
                client.closeResources();
                server.closeResources();
            }
        }
    }

    private static String threadCpus() {
        try {
            return CpuAffinity.allowedCpus();
        } catch (IllegalStateException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /**
     * Sleeps until the JIT's queues are empty and nothing is being compiled (HotSpot's
     * Compiler.queue diagnostic command), at most until {@code deadline}: a compiler thread still
     * at work during the measurement takes a CPU from the test, or from the device's own work
     * (Soft-RoCE runs in the kernel). On a JVM without that command, returns.
     */
    private static boolean awaitJitIdle(long deadline) {
        try {
            boolean first = true;
            while (first || System.nanoTime() - deadline < 0) {
                first = false;
                if (jitIdle(compilerQueue())) {
                    return true;
                }
                Thread.sleep(50);
            }
            return false;
        } catch (javax.management.JMException | RuntimeException e) {
            // not HotSpot, or no jdk.management: the rounds are all there is
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** One look at HotSpot's compile queues; true on a JVM without the Compiler.queue command. */
    private static boolean jitIdleNow() {
        try {
            return jitIdle(compilerQueue());
        } catch (javax.management.JMException | RuntimeException e) {
            return true;
        }
    }

    private static String compilerQueue() throws javax.management.JMException {
        Object queue = ManagementFactory.getPlatformMBeanServer().invoke(
                new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue",
                new Object[] {null}, new String[] {String[].class.getName()});
        return String.valueOf(queue);
    }

    /**
     * Whether a Compiler.queue report shows an idle JIT: no task under "Current compiles:" and
     * "Empty" under every "... compile queue:".
     */
    static boolean jitIdle(String report) {
        for (String line : report.lines().map(String::strip).toList()) {
            if (!line.isEmpty() && !line.equals("Current compiles:") && !line.endsWith("compile queue:")
                    && !line.equals("Empty")) {
                return false;
            }
        }
        return report.contains("Current compiles:");
    }
}
