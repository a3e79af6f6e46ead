package dev.jrdma.tools;

import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.ResultPlot;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.TestKind.AtomicType;
import dev.jrdma.tools.perftest.TestKind.Connection;
import dev.jrdma.tools.perftest.TestKind.Output;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The eight perftest tests as subcommands, with perftest's option names and per-test defaults
 * (perftest 6.06). Options shared by all tests live in mixins; each test adds the groups perftest
 * offers for it. No host argument = server, a host = client.
 */
final class PerftestCommands {
    private PerftestCommands() {
    }

    /** Options every test has: device, addressing, message size and count, output. */
    static final class CommonOptions {
        @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "Use this RDMA device (default: the first one).")
        String device;

        @Option(names = {"-i", "--ib-port"}, paramLabel = "PORT", description = "Device port (default: ${DEFAULT-VALUE}).")
        int ibPort;

        @Option(names = {"-x", "--gid-index"}, paramLabel = "INDEX",
                description = "GID index (RoCE: default picks the best RoCE v2 GID).")
        Integer gidIndex;

        @Option(names = {"-p", "--port"}, paramLabel = "PORT",
                description = "TCP port of the out-of-band exchange (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(names = {"-m", "--mtu"}, paramLabel = "BYTES",
                description = "Path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU).")
        Integer mtu;

        @Option(names = {"-c", "--connection"}, paramLabel = "TYPE",
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
                        + "no completion in a measurement loop, no client connecting (default: ${DEFAULT-VALUE}). "
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

    /** -e: send and read tests. */
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

    /** What every test command does: resolve and validate the settings, then run. */
    abstract static class Base implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        @Parameters(index = "0", arity = "0..1", paramLabel = "HOST",
                description = "The server to connect to; without it this side is the server.")
        String host;

        abstract TestKind kind();

        BandwidthOptions bandwidth() {
            return null;
        }

        SendOptions send() {
            return null;
        }

        EventOptions events() {
            return null;
        }

        InlineOptions inline() {
            return null;
        }

        OutstandingOptions outstanding() {
            return null;
        }

        AtomicOptions atomic() {
            return null;
        }

        @Override
        public Integer call() throws Exception {
            PerftestSettings settings = settings();   // usage errors first, exit code 2
            return PerftestRunner.run(settings, spec);
        }

        /**
         * The validated settings with perftest's defaults and dependencies applied.
         *
         * @throws ParameterException naming the option on invalid input
         */
        PerftestSettings settings() {
            TestKind k = kind();
            CommonOptions c = common;
            range("--size", "-s", c.size, 1, TestKind.MAX_SIZE);
            if (k.verb() == dev.jrdma.tools.perftest.Verb.ATOMIC && c.size != 8) {
                throw usage("option '--size' (-s): atomic operations are 8 bytes, got " + c.size);
            }
            range("--iters", "-n", c.iters, 5, TestKind.MAX_ITERS);
            range("--ib-port", "-i", c.ibPort, 1, 255);
            range("--port", "-p", c.port, 1, 65535);
            range("--tx-depth", "-t", c.txDepth, 1, 1 << 24);
            range("--qp-timeout", "-u", c.qpTimeout, 0, 31);
            range("--sl", "-S", c.sl, 0, 15);
            range("--timeout", "", c.timeoutSeconds, 1, 86_400);
            range("--warm-up", "", c.warmUp, 0, 100_000_000);
            if (c.pinCpu != null) {
                range("--pin-cpu", "", c.pinCpu, 0, dev.jrdma.tools.perftest.CpuAffinity.MAX_CPUS - 1);
            }
            if (c.gidIndex != null) {
                range("--gid-index", "-x", c.gidIndex, 0, 255);
            }
            int mtu = 0;
            if (c.mtu != null) {
                if (!Set.of(256, 512, 1024, 2048, 4096).contains(c.mtu)) {
                    throw usage("option '--mtu' (-m): must be 256, 512, 1024, 2048 or 4096, got " + c.mtu);
                }
                mtu = c.mtu;
            }
            if (!k.connections().contains(c.connection)) {
                throw usage("option '--connection' (-c): " + c.connection + " is not available for " + k.command()
                        + " (choose " + names(k.connections()) + ")");
            }
            if (c.output != null && !k.outputs().contains(c.output)) {
                throw usage("option '--output': " + c.output + " is not available for " + k.command() + " (choose "
                        + names(k.outputs()) + ")");
            }
            int formats = (c.json ? 1 : 0) + (c.csv ? 1 : 0) + (c.output != null ? 1 : 0);
            if (formats > 1) {
                throw usage("options '--json', '--csv' and '--output' exclude each other");
            }
            int duration = 0;
            if (c.duration != null) {
                range("--duration", "-D", c.duration, 1, 86_400);
                duration = c.duration;
                if (c.all) {
                    throw usage("options '--all' (-a) and '--duration' (-D) exclude each other");
                }
            }
            if (c.histogram != null && k.bandwidth()) {
                throw usage("option '--histogram': only latency tests have a latency distribution");
            }
            if (c.plot != null) {
                if (ResultPlot.Format.of(c.plot) == null) {
                    throw usage("option '--plot': FILE must end in .png or .svg, got '" + c.plot + "'");
                }
                if (k.bandwidth() && !c.all) {
                    throw usage("option '--plot': a BW test draws BW and message rate vs size, which needs --all (-a)");
                }
            }
            boolean eventsGiven = events() != null && events().events;
            if (duration > 0 && eventsGiven) {
                // perftest: "Duration mode doesn't work with events."
                throw usage("options '--duration' (-D) and '--events' (-e) exclude each other");
            }
            if (c.rdmaCm && c.connection == Connection.UC) {
                // perftest: "UC is not supported in librdmacm" (rdma_cm has no UC port space).
                throw usage("option '--rdma_cm' (-R): UC is not supported by rdma_cm (use RC or UD)");
            }
            List<Long> sizes = c.all ? PerftestSettings.sweep(k) : List.of(c.size);
            long iters = c.iters;
            // perftest clamps the queue depths to the iteration count (force_dependecies).
            int txDepth = duration == 0 ? (int) Math.min(c.txDepth, iters) : c.txDepth;

            int rxDepth = k.defaultRxDepth();
            if (send() != null) {
                range("--rx-depth", "-r", send().rxDepth, 1, 1 << 24);
                rxDepth = duration == 0 ? (int) Math.min(send().rxDepth, iters) : send().rxDepth;
                // force_dependecies: UC and UD lose a SEND that finds no receive, so an rx depth of 512
                // (the default, or -r 512) becomes -n, up to UC_MAX_RX 16000, when iterations are counted.
                if (duration == 0 && c.connection != Connection.RC && rxDepth == k.defaultRxDepth()) {
                    rxDepth = (int) Math.min(iters, 16_000);
                }
            }
            int inlineSize = -1;
            if (inline() != null) {
                range("--inline_size", "-I", inline().inlineSize, 0, 1 << 16);
                boolean explicit = spec.commandLine().getParseResult().hasMatchedOption("--inline_size");
                inlineSize = explicit ? inline().inlineSize : -1;
            }
            int qps = 1;
            int cqMod = 1;
            boolean bidirectional = false;
            boolean noPeak = false;
            boolean gbits = false;
            if (bandwidth() != null) {
                BandwidthOptions b = bandwidth();
                range("--qp", "-q", b.qps, 1, 16_384);
                range("--cq-mod", "-Q", b.cqMod, 1, 1 << 16);
                qps = b.qps;
                cqMod = b.cqMod;
                // force_dependecies: no CQ moderation for messages > 8 KiB unless asked for (not for UD,
                // -a or -e), and never more than the TX depth.
                boolean cqModGiven = spec.commandLine().getParseResult().hasMatchedOption("--cq-mod");
                if (!cqModGiven && !c.all && c.size > 8192 && c.connection != Connection.UD
                        && !(events() != null && events().events)) {
                    cqMod = 1;
                }
                cqMod = Math.min(cqMod, txDepth);
                bidirectional = b.bidirectional;
                gbits = b.reportGbits;
                // perftest forces no peak for duration runs, the send_bw server and > 20000 iterations.
                noPeak = b.noPeak || duration > 0 || iters > 20_000
                        || (k == TestKind.SEND_BW && host == null && !bidirectional);
            }
            int outReads = -1;
            if (outstanding() != null && outstanding().outReads != null) {
                range("--outs", "-o", outstanding().outReads, 1, 65_535);
                outReads = outstanding().outReads;
            }
            AtomicType atomicType = atomic() != null ? atomic().atomicType : null;
            boolean events = events() != null && events().events;
            return new PerftestSettings(k, host, c.device, c.ibPort, c.gidIndex == null ? -1 : c.gidIndex, c.port, mtu,
                    c.connection, c.rdmaCm, c.qpTimeout, c.sl, sizes,
                    spec.commandLine().getParseResult().hasMatchedOption("--size"), iters, duration, txDepth, rxDepth, inlineSize, qps,
                    cqMod, bidirectional, noPeak, gbits, events, outReads, atomicType, c.output, c.json, c.csv,
                    c.histogram, c.plot, Duration.ofSeconds(c.timeoutSeconds), c.warmUp,
                    c.pinCpu == null ? -1 : c.pinCpu);
        }

        private void range(String longName, String shortName, long value, long min, long max) {
            if (value < min || value > max) {
                String name = shortName.isEmpty() ? "'" + longName + "'" : "'" + longName + "' (" + shortName + ")";
                throw usage("option " + name + ": must be between " + min + " and " + max + ", got " + value);
            }
        }

        private ParameterException usage(String message) {
            return new ParameterException(spec.commandLine(), message);
        }

        private static String names(Set<? extends Enum<?>> values) {
            return values.stream().map(Enum::name).collect(Collectors.joining(", "));
        }
    }

    @Command(name = "send-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Send latency (ping-pong of sends), like ib_send_lat.")
    static final class SendLat extends Base {
        @Mixin SendOptions sendOptions;
        @Mixin EventOptions eventOptions;
        @Mixin InlineOptions inlineOptions;

        @Override TestKind kind() { return TestKind.SEND_LAT; }
        @Override SendOptions send() { return sendOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override InlineOptions inline() { return inlineOptions; }
    }

    @Command(name = "send-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Send bandwidth, like ib_send_bw.")
    static final class SendBw extends Base {
        @Mixin SendOptions sendOptions;
        @Mixin EventOptions eventOptions;
        @Mixin InlineOptions inlineOptions;
        @Mixin BandwidthOptions bandwidthOptions;

        @Override TestKind kind() { return TestKind.SEND_BW; }
        @Override SendOptions send() { return sendOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override InlineOptions inline() { return inlineOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
    }

    @Command(name = "write-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA write latency (each side polls the last byte the peer wrote), like ib_write_lat.")
    static final class WriteLat extends Base {
        @Mixin InlineOptions inlineOptions;

        @Override TestKind kind() { return TestKind.WRITE_LAT; }
        @Override InlineOptions inline() { return inlineOptions; }
    }

    @Command(name = "write-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA write bandwidth, like ib_write_bw.")
    static final class WriteBw extends Base {
        @Mixin InlineOptions inlineOptions;
        @Mixin BandwidthOptions bandwidthOptions;

        @Override TestKind kind() { return TestKind.WRITE_BW; }
        @Override InlineOptions inline() { return inlineOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
    }

    @Command(name = "read-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA read latency (client round trips), like ib_read_lat.")
    static final class ReadLat extends Base {
        @Mixin EventOptions eventOptions;
        @Mixin OutstandingOptions outstandingOptions;

        @Override TestKind kind() { return TestKind.READ_LAT; }
        @Override EventOptions events() { return eventOptions; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
    }

    @Command(name = "read-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA read bandwidth, like ib_read_bw.")
    static final class ReadBw extends Base {
        @Mixin EventOptions eventOptions;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin BandwidthOptions bandwidthOptions;

        @Override TestKind kind() { return TestKind.READ_BW; }
        @Override EventOptions events() { return eventOptions; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
    }

    @Command(name = "atomic-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Atomic latency (client round trips), like ib_atomic_lat.")
    static final class AtomicLat extends Base {
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin AtomicOptions atomicOptions;

        @Override TestKind kind() { return TestKind.ATOMIC_LAT; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override AtomicOptions atomic() { return atomicOptions; }
    }

    @Command(name = "atomic-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Atomic bandwidth, like ib_atomic_bw.")
    static final class AtomicBw extends Base {
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin AtomicOptions atomicOptions;
        @Mixin BandwidthOptions bandwidthOptions;

        @Override TestKind kind() { return TestKind.ATOMIC_BW; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override AtomicOptions atomic() { return atomicOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
    }
}
