// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A test run's parameters with perftest's defaults and dependencies applied: what the device
 * part needs to run the test and print it as perftest would.
 *
 * @param kind          the test
 * @param host          the server to connect to, or null for the server side
 * @param device        -d, or null for the first device
 * @param ibPort        -i
 * @param gidIndex      -x, or -1 to pick one (perftest picks the best RoCE GID)
 * @param port          -p, the TCP port of the out-of-band exchange
 * @param mtu           -m in bytes, or 0 for the port's active MTU
 * @param connection    -c
 * @param rdmaCm        -R
 * @param qpTimeout     -u
 * @param retryCount    --retry-count: transport retries before RETRY_EXC_ERR (jrdma's own; perftest uses 7)
 * @param sl            -S
 * @param sizes         one size, or the -a sweep (for UD see {@link #sizesForMtu})
 * @param sizeGiven     -s was on the command line (UD: a larger size than the MTU is then an error)
 * @param iters         -n (ignored for duration runs)
 * @param durationSeconds -D, 0 for an iteration run
 * @param txDepth       -t, clamped to -n like perftest
 * @param rxDepth       -r, clamped to -n for send tests like perftest
 * @param inlineSize    -I, or -1 for perftest's per-test default (see {@link TestKind#defaultInline})
 * @param qps           -q
 * @param cqMod         -Q
 * @param bidirectional -b
 * @param noPeak        -N, or forced by perftest's rules (duration runs, send_bw server, > 20000 iterations)
 * @param reportGbits   --report_gbits
 * @param events        -e
 * @param outReads      -o, or -1 for the device maximum
 * @param atomicType    -A
 * @param output        --output, or null for the full report
 * @param json          --json
 * @param csv           --csv
 * @param histogram     --histogram, or null
 * @param plot          --plot (.png or .svg), or null
 * @param timeout       --timeout: the limit of every step that waits for a prompt answer (connect, accept,
 *                      each exchange, each completion); not of a wait for the peer's whole run
 *                      (see {@link PerftestChannel#expectPeerRun})
 * @param warmUpIters   --warm-up: iterations of each round of the loopback warm-up before the
 *                      peer connects, 0 for none (jrdma's own; see {@link #forWarmUp})
 * @param pinCpus       --pin-cpu or --pin_cores: the CPUs the measuring thread is bound to, ascending,
 *                      or empty for no binding (see {@link CpuAffinity})
 * @param reports       the report options (-C, -U, -W, --cpu_util, ...)
 * @param run           the run-control options (--run_infinitely, -w, -y, ...)
 * @param posting       the posting and queue options (-l, --use-srq, ...)
 * @param addressing    the addressing, QoS, multicast and port options (-T, -g, -O, ...)
 * @param rate          the rate limiter (--rate_limit, ...)
 * @param memory        the memory options (--use_hugepages, --mmap, ...)
 * @param operations    the other verbs (--write_with_imm, --send_with_imm, --data_validation)
 * @param completionVector -X: the completion vector of the CQs (only with -e), or -1 for the device's default
 * @param dlid          --dlid: the destination LID the QPs connect to instead of the peer's (InfiniBand), or 0
 */
public record PerftestSettings(TestKind kind, String host, String device, int ibPort, int gidIndex, int port,
                               int mtu, TestKind.Connection connection, boolean rdmaCm, int qpTimeout, int retryCount, int sl,
                               List<Long> sizes, boolean sizeGiven, long iters, int durationSeconds, int txDepth, int rxDepth,
                               int inlineSize, int qps, int cqMod, boolean bidirectional, boolean noPeak,
                               boolean reportGbits, boolean events, int outReads, TestKind.AtomicType atomicType,
                               TestKind.Output output, boolean json, boolean csv, Path histogram,
                               Path plot, Duration timeout, long warmUpIters, List<Integer> pinCpus,
                               ReportSettings reports, RunSettings run, PostSettings posting,
                               AddressSettings addressing, RateSettings rate, MemorySettings memory,
                               OperationSettings operations, int completionVector, int dlid) {

    public PerftestSettings {
        sizes = List.copyOf(sizes);
        pinCpus = List.copyOf(pinCpus);
    }

    /**
     * The parameters for --json/--csv, in a stable order, with the resolved values (what ran, not
     * what was typed); -1 means "device default" where noted in the field docs.
     */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("test", kind.command());
        p.put("perftest_equivalent", kind.perftestBinary());
        p.put("role", client() ? "client" : "server");
        p.put("host", host);
        p.put("device", device);
        p.put("ib_port", ibPort);
        p.put("gid_index", gidIndex);
        p.put("port", port);
        p.put("mtu", mtu);
        p.put("connection", connection.name());
        p.put("rdma_cm", rdmaCm);
        p.put("qp_timeout", qpTimeout);
        p.put("retry_count", retryCount);
        p.put("sl", sl);
        p.put("all_sizes", sizes.size() > 1);
        p.put("size", sizes.size() == 1 ? sizes.get(0) : null);
        p.put("iterations", durationSeconds > 0 ? null : iters);
        p.put("duration_seconds", durationSeconds > 0 ? durationSeconds : null);
        p.put("tx_depth", txDepth);
        p.put("rx_depth", rxDepth);
        p.put("inline_size", inlineSize);
        p.put("qps", qps);
        p.put("cq_mod", cqMod);
        p.put("bidirectional", bidirectional);
        p.put("no_peak", noPeak);
        p.put("report_gbits", reportGbits);
        p.put("events", events);
        p.put("out_reads", outReads);
        p.put("atomic_type", atomicType == null ? null : atomicType.name());
        p.put("warm_up_iterations", warmUpIters);
        p.putAll(addressing.toParameters());
        p.put("completion_vector", completionVector >= 0 ? completionVector : null);
        p.put("dlid", dlid != 0 ? dlid : null);
        p.putAll(reports.toParameters());
        p.putAll(run.toParameters());
        p.putAll(rate.toParameters());
        p.putAll(memory.toParameters());
        p.putAll(operations.toParameters());
        return p;
    }

    /**
     * One side of the loopback pair of the JIT warm-up: this test with its connection type, QPs,
     * events, peak rule and atomic type, so the same code paths run (and get compiled) as in the
     * measurement, but {@code iters} iterations of one message of {@code size} bytes, no -R, no
     * duration, no output or result files, and a timeout of at most 5 s (the peer is in the same
     * process: a wait that long means a message was lost).
     * <p>
     * The send queue keeps its relation to the iterations: where the measurement's tx depth is
     * below its iterations (its send queue fills up), the warm-up's is half its iterations, so the
     * loop takes that branch too (a branch the warm-up never took is compiled as a trap that
     * sends the measurement back to the interpreter). The rx depth is the iterations, as perftest
     * clamps it: a run consumes every receive it posts and re-posts none during the run. Where the
     * measurement re-posts (rx depth below its iterations) that branch stays untaken: loopback
     * pairs on rxe (Linux 6.1) that re-posted during their runs lost a message in 3 warm-ups out of
     * 8, then waited forever; scripts/jrdma keeps the JIT from compiling untaken branches as traps
     * under emulation, where a recompilation costs most.
     *
     * @param client the client side (the one that starts) or the server side
     * @param size   the message size: the caller keeps it on the same side of the inline limit
     * @param iters  the iterations of one warm-up run, at least 2
     */
    public PerftestSettings forWarmUp(boolean client, long size, long iters) {
        int tx = (int) Math.min(txDepth, txDepth < this.iters ? iters / 2 : iters);
        int rx = (int) Math.min(rxDepth, iters);
        Duration wait = timeout.compareTo(WARM_UP_TIMEOUT) < 0 ? timeout : WARM_UP_TIMEOUT;
        return new PerftestSettings(kind, client ? "loopback" : null, device, ibPort, gidIndex, port, mtu, connection,
                false, qpTimeout, retryCount, sl, List.of(size), true, iters, 0, tx, rx, inlineSize, qps, Math.min(cqMod, tx),
                bidirectional, noPeak, reportGbits, events, outReads, atomicType, null, false, false, null, null,
                wait, 0, List.of(),
                ReportSettings.DEFAULT,
                RunSettings.DEFAULT,
                posting,
                addressing,
                RateSettings.DEFAULT,   // unpaced: a limit would stretch the warm-up by its own length
                memory.forWarmUp(),
                operations,
                completionVector,
                0);   // the warm-up's loopback peer is this device: its own LID
    }

    private static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(5);

    /**
     * The sizes to run once the path MTU is agreed: for UD perftest's check_mtu rules (the -a
     * sweep ends at the MTU; a default size above it is lowered, an explicit one is an error),
     * otherwise {@link #sizes()} unchanged.
     *
     * @throws IllegalArgumentException naming -s for an explicit UD size above the MTU
     */
    public List<Long> sizesForMtu(int mtuBytes) {
        if (connection != TestKind.Connection.UD) {
            return sizes;
        }
        if (sizes.size() > 1) {
            return PerftestSchedule.udSweep(mtuBytes);
        }
        return List.of(PerftestSchedule.udSize(sizes.get(0), sizeGiven, mtuBytes));
    }

    /** The side with a host argument. */
    public boolean client() {
        return host != null;
    }

    /**
     * The side in perftest's client role of the test (its {@code machine}): the side with a host
     * argument, or with --reversed the other one. The out-of-band exchange follows {@link #client()}.
     */
    public boolean testClient() {
        return run.testClient(client());
    }

    /** The sizes of perftest's -a sweep: 2, 4, ... 2^23 (atomics: 8 only). */
    public static List<Long> sweep(TestKind kind) {
        if (kind.verb() == Verb.ATOMIC) {
            return List.of(8L);
        }
        java.util.ArrayList<Long> sizes = new java.util.ArrayList<>();
        for (int i = 1; i < 24; i++) {
            sizes.add(1L << i);
        }
        return sizes;
    }
}
