// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.PerftestOptions.CommonOptions;
import dev.jrdma.tools.PerftestOptions.BandwidthOptions;
import dev.jrdma.tools.PerftestOptions.SendOptions;
import dev.jrdma.tools.PerftestOptions.EventOptions;
import dev.jrdma.tools.PerftestOptions.InlineOptions;
import dev.jrdma.tools.PerftestOptions.OutstandingOptions;
import dev.jrdma.tools.PerftestOptions.AtomicOptions;
import dev.jrdma.tools.MemoryOptions.NullMrOptions;
import dev.jrdma.tools.MemoryOptions.PayloadOptions;
import dev.jrdma.tools.OperationOptions.DataValidationOptions;
import dev.jrdma.tools.OperationOptions.WriteImmediateOptions;
import dev.jrdma.tools.perftest.AddressSettings;
import dev.jrdma.tools.perftest.MemorySettings;
import dev.jrdma.tools.perftest.OperationSettings;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.PostSettings;
import dev.jrdma.tools.perftest.RateSettings;
import dev.jrdma.tools.perftest.ReportSettings;
import dev.jrdma.tools.perftest.RunSettings;
import dev.jrdma.tools.perftest.ResultPlot;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.TestKind.AtomicType;
import dev.jrdma.tools.perftest.TestKind.Connection;
import dev.jrdma.tools.runner.PerftestRunner;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
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

    /** What every test command does: resolve and validate the settings, then run. */
    abstract static class Base implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        /** perftest's options for hardware jrdma cannot use: parsed, then refused by name (exit 2). */
        @Mixin
        RefusedOptions refusals;

        /** perftest's options that ask for what jrdma does anyway. */
        @Mixin
        NoEffectOptions noEffect;

        @Mixin
        AddressOptions.Common addressOptions;

        @Mixin
        PostOptions.Common postCommon;

        @Mixin
        MemoryOptions memoryOptions;

        @Mixin
        ReportOptions reportOptions;

        @Mixin
        RunOptions runOptions;

        @Mixin
                DlidOption dlidOption;

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

        /** -g/-M (send tests), --connectionless (send-bw), -O (BW tests): null where not offered. */
        AddressOptions.Multicast multicast() {
            return null;
        }

        AddressOptions.Connectionless connectionless() {
            return null;
        }

        AddressOptions.DualPort dualPort() {
            return null;
        }

        PostOptions.Lists postLists() {
            return null;
        }

        PostOptions.Srq srq() {
            return null;
        }

        /** -X: the tests that offer it (perftest: every verb but write). */
        CompletionVectorOption vector() {
            return null;
        }

        @Override
        public Integer call() throws Exception {
            PerftestSettings settings = settings();   // usage errors first, exit code 2
            DeviceRefusals.ask(spec, refusals, settings);   // what the device lacks (-c XRC, ...), exit code 2
            return PerftestRunner.run(settings, CommandConsole.of(spec));
        }

        /**
         * The validated settings with perftest's defaults and dependencies applied.
         *
         * @throws ParameterException naming the option on invalid input
         */
        PerftestSettings settings() {
            TestKind k = kind();
            CommonOptions c = common;
            if (multicast() != null && multicast().multicast) {
                c.connection = Connection.UD;   // perftest: -g makes the test UD
            }
            RunSettings runSettings = run();
            range("--size", "-s", c.size, 1, TestKind.MAX_SIZE);
            if (k.verb() == dev.jrdma.tools.perftest.Verb.ATOMIC && c.size != 8) {
                throw usage("option '--size' (-s): atomic operations are 8 bytes, got " + c.size);
            }
            range("--iters", "-n", c.iters, 5, TestKind.MAX_ITERS);
            range("--ib-port", "-i", c.ibPort, 1, 255);
            range("--port", "-p", c.port, 1, 65535);
            range("--tx-depth", "-t", c.txDepth, 1, 1 << 24);
            range("--qp-timeout", "-u", c.qpTimeout, 0, 31);
            range("--retry-count", "", c.retryCount, 0, 7);
            range("--sl", "-S", c.sl, 0, 15);
            range("--timeout", "", c.timeoutSeconds, 1, 86_400);
            range("--warm-up", "", c.warmUp, 0, 100_000_000);
            if (c.pinCpu != null) {
                range("--pin-cpu", "", c.pinCpu, 0, dev.jrdma.tools.perftest.CpuAffinity.MAX_CPUS - 1);
            }
            List<Integer> pinCpus = pinCpus(c);
            if (c.gidIndex != null) {
                range("--gid-index", "-x", c.gidIndex, 0, 64);   // perftest: MIN_GID_IX..MAX_GID_IX
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
            if (runSettings.runInfinitely() && duration == 0) {
                duration = RunSettings.DEFAULT_PERIOD_SECONDS;   // perftest: a DURATION run, -D's default period
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
            if (c.rdmaCm && c.retryCount != 7) {
                // perftest's --retry_count sets rdma_cm's retry_count; jrdma's rdma_cm connects with 7.
                throw usage("option '--retry-count' (--retry_count): with --rdma_cm (-R) jrdma connects with "
                        + "rdma_cm's retry count 7, got " + c.retryCount);
            }
            if (c.rdmaCm && c.connection == Connection.UC) {
                // perftest: "UC is not supported in librdmacm" (rdma_cm has no UC port space).
                throw usage("option '--rdma_cm' (-R): UC is not supported by rdma_cm (use RC or UD)");
            }
            List<Long> sizes = c.all ? PerftestSettings.sweep(k) : List.of(c.size);
            long iters = c.iters;
            // perftest clamps the queue depths to the iteration count (force_dependecies).
            int txDepth = duration == 0 ? (int) Math.min(c.txDepth, iters) : c.txDepth;

            // --write_with_imm: each write consumes a receive, posted as for a send test (perftest's DEF_RX_SEND).
            int rxDepth = operations().writeWithImmediate() ? (int) (duration == 0 ? Math.min(512, iters) : 512)
                    : k.defaultRxDepth();
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
                        || (k == TestKind.SEND_BW && !runSettings.testClient(host != null) && !bidirectional);
            }
            int outReads = -1;
            if (outstanding() != null && outstanding().outReads != null) {
                range("--outs", "-o", outstanding().outReads, 1, 65_535);
                outReads = outstanding().outReads;
            }
            AtomicType atomicType = atomic() != null ? atomic().atomicType : null;
            boolean events = events() != null && events().events;
            PostSettings posting = posting();   // -l sets -Q, an SRQ the UC/UD rx depth (force_dependecies)
            cqMod = PostOptions.cqMod(spec.commandLine(), posting, cqMod,
                    spec.commandLine().getParseResult().hasMatchedOption("--cq-mod"));
            rxDepth = PostOptions.rxDepth(posting, c.connection, iters, duration > 0, rxDepth);
            PostOptions.check(spec.commandLine(), posting, k, iters, duration > 0, txDepth, rxDepth, qps);
            return new PerftestSettings(k, host, c.device, c.ibPort, c.gidIndex == null ? -1 : c.gidIndex, c.port, mtu,
                    c.connection, c.rdmaCm, c.qpTimeout, c.retryCount, c.sl, sizes,
                    spec.commandLine().getParseResult().hasMatchedOption("--size"), iters, duration, txDepth, rxDepth, inlineSize, qps,
                    cqMod, bidirectional, noPeak, gbits, events, outReads, atomicType, c.output, c.json, c.csv,
                    c.histogram, c.plot, Duration.ofSeconds(c.timeoutSeconds), c.warmUp,
                    pinCpus,
                    reports(duration), runSettings, posting, addressing(), rate(), memory(), operations(),
                    vector() == null ? -1 : vector().resolve(spec, events), dlidOption.resolve(spec));
        }

        // One hook per option group of PerftestSettings, each owned by its group's mixin: a test
        // that offers the group's options overrides the hook (or the hook reads a mixin of Base).

        ReportSettings reports(int duration) {
            return ReportOptions.resolve(spec, kind(), reportOptions, mixin(ReportOptions.Latency.class),
                    mixin(ReportOptions.Bandwidth.class), duration);
        }

        RunSettings run() {
            BandwidthOptions b = bandwidth();
            return RunOptions.resolve(spec, kind(), runOptions, mixin(RunOptions.Latency.class),
                    mixin(RunOptions.Bandwidth.class), common.all, events() != null && events().events,
                    b != null && b.bidirectional, common.rdmaCm);
        }

        /** The test's mixin of {@code type}, or null when the test does not offer that option group. */
        <T> T mixin(Class<T> type) {
            for (CommandSpec m : spec.mixins().values()) {
                if (type.isInstance(m.userObject())) {
                    return type.cast(m.userObject());
                }
            }
            return null;
        }

        PostSettings posting() {
            return PostOptions.resolve(spec.commandLine(), kind(), postCommon, postLists(), srq(), common.iters,
                    common.duration != null, bandwidth() != null && bandwidth().bidirectional);
        }

        AddressSettings addressing() {
            boolean b = bandwidth() != null && bandwidth().bidirectional;
            int qps = bandwidth() != null ? bandwidth().qps : 1;
            return AddressOptions.resolve(spec, kind(), host, addressOptions, multicast(), connectionless(), dualPort(),
                    common.connection, common.rdmaCm, b, qps);
        }

        RateSettings rate() {
            RateOptions r = rateOptions();
            return r == null ? RateSettings.DEFAULT
                    : r.resolve(spec, kind(), bandwidth() != null && bandwidth().bidirectional);
        }

        MemorySettings memory() {
            long maxSize = common.all ? PerftestSettings.sweep(kind()).getLast() : common.size;
            return memoryOptions.resolve(spec, payloadOptions(), nullMrOptions(), maxSize, common.pinCpu != null);
        }

        OperationSettings operations() {
            return OperationOptions.resolve(spec, operationOptions(), writeImmediateOptions(), dataValidationOptions(),
                    common, memory());
        }

        // The rate limiter, memory and other-verbs groups: per test where perftest offers them.

        RateOptions rateOptions() {
            return null;
        }

        PayloadOptions payloadOptions() {
            return null;
        }

        NullMrOptions nullMrOptions() {
            return null;
        }

        OperationOptions operationOptions() {
            return null;
        }

        WriteImmediateOptions writeImmediateOptions() {
            return null;
        }

        DataValidationOptions dataValidationOptions() {
            return null;
        }

        /** --pin-cpu's one CPU or --pin_cores' list (perftest 26.04's syntax: 0,2,4-7). */
        private List<Integer> pinCpus(CommonOptions c) {
            if (c.pinCores == null) {
                return c.pinCpu == null ? List.of() : List.of(c.pinCpu);
            }
            if (c.pinCpu != null) {
                throw usage("options '--pin-cpu' and '--pin_cores' exclude each other");
            }
            try {
                return dev.jrdma.tools.perftest.CpuAffinity.parseList(c.pinCores);
            } catch (IllegalArgumentException e) {
                throw usage("option '--pin_cores': " + e.getMessage());
            }
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
        @Mixin ReportOptions.Latency latencyReports;
        @Mixin RunOptions.Latency latencyRun;
        @Mixin SendOptions sendOptions;
        @Mixin PostOptions.Srq srqOptions;
        @Mixin EventOptions eventOptions;
        @Mixin InlineOptions inlineOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin OperationOptions operationOptions;

        @Mixin CompletionVectorOption vectorOption;
        @Override CompletionVectorOption vector() { return vectorOption; }

        @Mixin AddressOptions.Multicast multicastOptions;

        @Override TestKind kind() { return TestKind.SEND_LAT; }
        @Override AddressOptions.Multicast multicast() { return multicastOptions; }
        @Override SendOptions send() { return sendOptions; }
        @Override PostOptions.Srq srq() { return srqOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override InlineOptions inline() { return inlineOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
        @Override OperationOptions operationOptions() { return operationOptions; }
    }

    @Command(name = "send-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Send bandwidth, like ib_send_bw.")
    static final class SendBw extends Base {
        @Mixin ReportOptions.Bandwidth bandwidthReports;
        @Mixin RunOptions.Bandwidth bandwidthRun;
        @Mixin SendOptions sendOptions;
        @Mixin PostOptions.Srq srqOptions;
        @Mixin EventOptions eventOptions;
        @Mixin InlineOptions inlineOptions;
        @Mixin BandwidthOptions bandwidthOptions;
        @Mixin PostOptions.Lists postListOptions;
        @Mixin RefusedOptions.DataValidation refusalsOfDataValidation;

        @Mixin CompletionVectorOption vectorOption;
        @Override CompletionVectorOption vector() { return vectorOption; }

        @Mixin AddressOptions.Multicast multicastOptions;
        @Mixin AddressOptions.Connectionless connectionlessOptions;
        @Mixin AddressOptions.DualPort dualPortOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin RateOptions rateOptions;
        @Mixin OperationOptions operationOptions;

        @Override TestKind kind() { return TestKind.SEND_BW; }
        @Override AddressOptions.Multicast multicast() { return multicastOptions; }
        @Override AddressOptions.Connectionless connectionless() { return connectionlessOptions; }
        @Override AddressOptions.DualPort dualPort() { return dualPortOptions; }
        @Override SendOptions send() { return sendOptions; }
        @Override PostOptions.Srq srq() { return srqOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override InlineOptions inline() { return inlineOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
        @Override PostOptions.Lists postLists() { return postListOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
        @Override RateOptions rateOptions() { return rateOptions; }
        @Override OperationOptions operationOptions() { return operationOptions; }
    }

    @Command(name = "write-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA write latency (each side polls the last byte the peer wrote), like ib_write_lat.")
    static final class WriteLat extends Base {
        @Mixin ReportOptions.Latency latencyReports;
        @Mixin RunOptions.Latency latencyRun;
        @Mixin InlineOptions inlineOptions;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin WriteImmediateOptions writeImmediateOptions;

        @Override TestKind kind() { return TestKind.WRITE_LAT; }
        @Override InlineOptions inline() { return inlineOptions; }
        @Override NullMrOptions nullMrOptions() { return nullMrOptions; }
        @Override WriteImmediateOptions writeImmediateOptions() { return writeImmediateOptions; }
    }

    @Command(name = "write-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA write bandwidth, like ib_write_bw.")
    static final class WriteBw extends Base {
        @Mixin ReportOptions.Bandwidth bandwidthReports;
        @Mixin RunOptions.Bandwidth bandwidthRun;
        @Mixin InlineOptions inlineOptions;
        @Mixin BandwidthOptions bandwidthOptions;
        @Mixin PostOptions.Lists postListOptions;

        @Mixin AddressOptions.DualPort dualPortOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin RateOptions rateOptions;
        @Mixin WriteImmediateOptions writeImmediateOptions;
        @Mixin DataValidationOptions dataValidationOptions;

        @Override TestKind kind() { return TestKind.WRITE_BW; }
        @Override AddressOptions.DualPort dualPort() { return dualPortOptions; }
        @Override InlineOptions inline() { return inlineOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
        @Override PostOptions.Lists postLists() { return postListOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
        @Override NullMrOptions nullMrOptions() { return nullMrOptions; }
        @Override RateOptions rateOptions() { return rateOptions; }
        @Override WriteImmediateOptions writeImmediateOptions() { return writeImmediateOptions; }
        @Override DataValidationOptions dataValidationOptions() { return dataValidationOptions; }
    }

    @Command(name = "read-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA read latency (client round trips), like ib_read_lat.")
    static final class ReadLat extends Base {
        @Mixin ReportOptions.Latency latencyReports;
        @Mixin RunOptions.Latency latencyRun;
        @Mixin EventOptions eventOptions;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin NullMrOptions nullMrOptions;

        @Mixin CompletionVectorOption vectorOption;
        @Override CompletionVectorOption vector() { return vectorOption; }

        @Override TestKind kind() { return TestKind.READ_LAT; }
        @Override EventOptions events() { return eventOptions; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
        @Override NullMrOptions nullMrOptions() { return nullMrOptions; }
    }

    @Command(name = "read-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA read bandwidth, like ib_read_bw.")
    static final class ReadBw extends Base {
        @Mixin ReportOptions.Bandwidth bandwidthReports;
        @Mixin RunOptions.Bandwidth bandwidthRun;
        @Mixin EventOptions eventOptions;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin BandwidthOptions bandwidthOptions;
        @Mixin PostOptions.Lists postListOptions;

        @Mixin CompletionVectorOption vectorOption;
        @Override CompletionVectorOption vector() { return vectorOption; }

        @Mixin AddressOptions.DualPort dualPortOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin RateOptions rateOptions;
        @Mixin DataValidationOptions dataValidationOptions;

        @Override TestKind kind() { return TestKind.READ_BW; }
        @Override AddressOptions.DualPort dualPort() { return dualPortOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
        @Override PostOptions.Lists postLists() { return postListOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
        @Override NullMrOptions nullMrOptions() { return nullMrOptions; }
        @Override RateOptions rateOptions() { return rateOptions; }
        @Override DataValidationOptions dataValidationOptions() { return dataValidationOptions; }
    }

    @Command(name = "atomic-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Atomic latency (client round trips), like ib_atomic_lat.")
    static final class AtomicLat extends Base {
        @Mixin ReportOptions.Latency latencyReports;
        @Mixin RunOptions.Latency latencyRun;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin AtomicOptions atomicOptions;
        @Mixin EventOptions eventOptions;
        @Mixin PayloadOptions payloadOptions;

        @Mixin CompletionVectorOption vectorOption;
        @Override CompletionVectorOption vector() { return vectorOption; }

        @Override TestKind kind() { return TestKind.ATOMIC_LAT; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override AtomicOptions atomic() { return atomicOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
    }

    @Command(name = "atomic-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Atomic bandwidth, like ib_atomic_bw.")
    static final class AtomicBw extends Base {
        @Mixin ReportOptions.Bandwidth bandwidthReports;
        @Mixin RunOptions.Bandwidth bandwidthRun;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin AtomicOptions atomicOptions;
        @Mixin BandwidthOptions bandwidthOptions;
        @Mixin PostOptions.Lists postListOptions;
        @Mixin RefusedOptions.DataValidation refusalsOfDataValidation;

        @Mixin CompletionVectorOption vectorOption;
        @Override CompletionVectorOption vector() { return vectorOption; }

        @Mixin AddressOptions.DualPort dualPortOptions;
        @Mixin EventOptions eventOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin RateOptions rateOptions;

        @Override TestKind kind() { return TestKind.ATOMIC_BW; }
        @Override AddressOptions.DualPort dualPort() { return dualPortOptions; }
        @Override OutstandingOptions outstanding() { return outstandingOptions; }
        @Override AtomicOptions atomic() { return atomicOptions; }
        @Override BandwidthOptions bandwidth() { return bandwidthOptions; }
        @Override PostOptions.Lists postLists() { return postListOptions; }
        @Override EventOptions events() { return eventOptions; }
        @Override PayloadOptions payloadOptions() { return payloadOptions; }
        @Override RateOptions rateOptions() { return rateOptions; }
    }
}
