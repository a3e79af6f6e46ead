// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.TestKind.AtomicType;
import dev.jrdma.tools.perftest.TestKind.Connection;
import dev.jrdma.tools.perftest.TestKind.Output;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * The option groups of the perftest tests (picocli mixins, with perftest's option names), their
 * per-test defaults and the size converter; {@link PerftestCommands} combines them per test.
 */
final class PerftestOptions {
    private PerftestOptions() {
    }

    /** Options every test has: device, addressing, message size and count, output. */
    static final class CommonOptions {
        @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Use this RDMA device (default: the first one).")
        String device;

        @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "Device port (default: ${DEFAULT-VALUE}).")
        int ibPort;

        @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX",
                description = "GID index, 0-64 as in perftest (RoCE: default picks the best RoCE v2 GID).")
        Integer gidIndex;

        @Option(names = {"-p", "--port"}, paramLabel = "PORT",
                description = "TCP port of the out-of-band exchange (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES",
                description = "Path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU).")
        Integer mtu;

        @Option(names = {"-c", "--connection"}, paramLabel = "TYPE", preprocessor = DeviceRefusals.ConnectionTypes.class,
                description = "Connection type: ${COMPLETION-CANDIDATES} where the test offers it (default: ${DEFAULT-VALUE}).")
        Connection connection;

        @Option(names = {"-R", "--rdma_cm"},
                description = "Use rdma_cm instead of TCP, as perftest -R: every exchange message travels over an "
                        + "rdma_cm-connected control QP and the test QP is connected by rdma_cm, both on the -p port; "
                        + "the client's host must be the IPv4 address of the server's RDMA interface. jrdma: RC with "
                        + "one QP (with -c UD or -q above 1 it exits 1).")
        boolean rdmaCm;

        @Option(names = {"-u", "--qp-timeout"}, paramLabel = "N", description = "QP timeout exponent (default: ${DEFAULT-VALUE}).")
        int qpTimeout;

        @Option(names = {"--retry-count", "--retry_count"}, paramLabel = "N",
                description = "Transport retries of an RC QP before its work request fails with "
                        + "RETRY_EXC_ERR, 0-7; the retry budget is (N + 1) x 4.096 us x 2^-u. 7 is perftest's value, "
                        + "which Soft-RoCE (rxe) takes as 'retry forever', as it does an RNR retry count of 7: there a "
                        + "dead peer is then noticed by --timeout only. perftest's --retry_count sets it for rdma_cm "
                        + "(-R) only; jrdma's rdma_cm connects with 7, so with -R only 7 is taken "
                        + "(default: ${DEFAULT-VALUE}).")
        int retryCount;

        @Option(names = {"-S", "--sl"}, paramLabel = "SL",
                description = "Service level of the QPs' address vector, 0-15 (default: ${DEFAULT-VALUE}).")
        int sl;

        @Option(names = {"-s", "--size"}, paramLabel = "BYTES", converter = SizeConverter.class,
                description = "Message size, K and M suffixes allowed (default: ${DEFAULT-VALUE}).")
        long size;

        @Option(names = {"-a", "--all"}, description = "Run all sizes from 2 to 2^23 bytes (UD: up to the path MTU).")
        boolean all;

        @Option(names = {"-n", "--iters"}, paramLabel = "N",
                description = "Number of exchanges, at least 5 (default: ${DEFAULT-VALUE}).")
        long iters;

        @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS",
                description = "Run for this long instead of -n iterations: a warm-up of SECONDS/4 (whole seconds), "
                        + "the sample window, and as long a cool-down; the row reports the window. Progress on "
                        + "stderr when it is a terminal. Excludes -a and -e.")
        Integer duration;

        @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "Send queue depth (default: ${DEFAULT-VALUE}).")
        int txDepth;

        @Option(names = {"-F", "--CPU-freq"},
                description = "Accepted for perftest compatibility; jrdma times with System.nanoTime, not CPU cycles.")
        boolean cpuFreq;

        @Option(names = "--output", paramLabel = "WHAT",
                description = "Print only one number: bandwidth or message_rate (BW tests), latency (latency tests).")
        Output output;

        @Option(names = "--json", description = "Print one JSON document for the run instead of the table.")
        boolean json;

        @Option(names = "--csv", description = "Print CSV (header + one line per size) instead of the table.")
        boolean csv;

        @Option(names = "--histogram", paramLabel = "FILE",
                description = "Write the latency percentile distribution (HdrHistogram format) to FILE.")
        Path histogram;

        @Option(names = "--plot", paramLabel = "FILE",
                description = "Draw the result to FILE (.png or .svg): the latency percentile curve, or BW and "
                        + "message rate vs size for -a.")
        Path plot;

        @Option(names = "--timeout", paramLabel = "SECONDS",
                description = "Give up when the peer makes no progress for this long: no answer to an exchange, "
                        + "no completion in a measurement loop, no client connecting, no server listening (a client "
                        + "refused tries again until then: a jrdma server listens after its warm-up) "
                        + "(default: ${DEFAULT-VALUE}). "
                        + "Waiting for the peer's own run (a passive server) is not limited by it: that wait ends "
                        + "when the peer finishes, closes the connection (exits or is killed) or its host stops "
                        + "answering TCP keepalives (tuned to this timeout); with -D after the duration plus this.")
        int timeoutSeconds;

        @Option(names = "--warm-up", paramLabel = "N",
                description = "jrdma's own: before connecting (the server: before it listens), run this test on a "
                        + "loopback QP pair of the same device in rounds of N iterations until the JIT has compiled "
                        + "it (at most 10 rounds, 20 s or half the --timeout, then up to 5 s for the JIT to finish), "
                        + "so the measurement starts with compiled code as a C tool does; nothing of it goes on the "
                        + "wire to the peer. 0 turns it off. Skipped with -D (which has its own warm-up) and on a "
                        + "side that does not run the test (e.g. the write-bw server) (default: ${DEFAULT-VALUE}).")
        long warmUp;

        @Option(names = "--pin-cpu", paramLabel = "CPU",
                description = "jrdma's own: bind the thread that runs the test to this CPU (sched_setaffinity), "
                        + "as `taskset -c CPU` does for perftest's single thread; the JVM's other threads (JIT, GC, "
                        + "the warm-up's) stay free, which taskset on a JVM would not allow. Default: not bound.")
        Integer pinCpu;

        @Option(names = "--pin_cores", paramLabel = "CPUS",
                description = "As perftest 26.04: bind the thread that runs the test to these CPUs: one (3), a list "
                        + "(0,2), a range (0-3) or a mix (0-3,8); perftest binds its one thread so. --pin-cpu is the "
                        + "one-CPU form. Default: not bound.")
        String pinCores;
    }

    /** Bandwidth tests: -q, -Q, -b, -N, --report_gbits. */
    static final class BandwidthOptions {
        @Option(names = {"-q", "--qp"}, paramLabel = "N", description = "Number of QPs (default: ${DEFAULT-VALUE}).")
        int qps;

        @Option(names = {"-Q", "--cq-mod"}, paramLabel = "N",
                description = "Request a completion every N messages (default: ${DEFAULT-VALUE}).")
        int cqMod;

        @Option(names = {"-b", "--bidirectional"},
                description = "Measure both directions at once: both sides run and each prints the sum of both "
                        + "directions (give it to both sides).")
        boolean bidirectional;

        @Option(names = {"-N", "--noPeak"}, description = "Do not compute the peak bandwidth.")
        boolean noPeak;

        @Option(names = "--report_gbits", description = "Report Gb/s (10^9 bits) instead of MB/s (2^20 bytes).")
        boolean reportGbits;
    }

    /** Send tests: -r and -e. */
    static final class SendOptions {
        @Option(names = {"-r", "--rx-depth"}, paramLabel = "N", description = "Receive queue depth (default: ${DEFAULT-VALUE}, clamped to -n; with -c UC or UD and "
                        + "-n iterations, 512 becomes -n up to 16000, as in perftest).")
        int rxDepth;
    }

    /** -e: send, read and atomic tests. */
    static final class EventOptions {
        @Option(names = {"-e", "--events"}, description = "Sleep on completion events instead of polling.")
        boolean events;
    }

    /** -I: send and write tests. */
    static final class InlineOptions {
        @Option(names = {"-I", "--inline_size"}, paramLabel = "BYTES",
                description = "Max inline data (default: ${DEFAULT-VALUE} where the device supports inline).")
        int inlineSize;
    }

    /** -o: read and atomic tests. */
    static final class OutstandingOptions {
        @Option(names = {"-o", "--outs"}, paramLabel = "N",
                description = "Outstanding reads/atomics (default: the device maximum).")
        Integer outReads;
    }

    /** -A: atomic tests. */
    static final class AtomicOptions {
        @Option(names = {"-A", "--atomic_type"}, paramLabel = "TYPE",
                description = "${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
        AtomicType atomicType;
    }

    /** Per-test defaults shown in --help and applied when an option is absent. */
    static final class Defaults implements IDefaultValueProvider {
        private final TestKind kind;

        Defaults(TestKind kind) {
            this.kind = kind;
        }

        @Override
        public String defaultValue(ArgSpec arg) {
            if (!(arg instanceof OptionSpec o)) {
                return null;
            }
            return switch (o.longestName()) {
                case "--ib-port" -> "1";
                case "--port" -> Integer.toString(PerftestChannel.DEFAULT_PORT);
                case "--connection" -> "RC";
                case "--qp-timeout" -> "14";
                case "--retry-count", "--retry_count" -> "7";
                case "--sl" -> "0";
                case "--size" -> Long.toString(kind.defaultSize());
                case "--iters" -> Long.toString(kind.defaultIters());
                case "--tx-depth" -> Integer.toString(kind.defaultTxDepth());
                case "--rx-depth" -> Integer.toString(kind.defaultRxDepth());
                case "--inline_size" -> Integer.toString(kind.defaultInline(Connection.RC));
                case "--qp" -> "1";
                case "--cq-mod" -> "100";
                case "--atomic_type" -> "FETCH_AND_ADD";
                case "--timeout" -> "60";
                case "--warm-up" -> "10000";
                default -> null;
            };
        }
    }

    /** -s with perftest's K (1024) and M (1024^2) suffixes. */
    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.strip();
            long factor = 1;
            if (v.endsWith("K")) {
                factor = 1024;
                v = v.substring(0, v.length() - 1);
            } else if (v.endsWith("M")) {
                factor = 1024 * 1024;
                v = v.substring(0, v.length() - 1);
            }
            try {
                return Math.multiplyExact(Long.parseLong(v), factor);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a size (e.g. 4096, 64K, 1M)");
            }
        }
    }
}
