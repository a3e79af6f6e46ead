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
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.runner.PerftestRunner;
import java.util.concurrent.Callable;
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
         * The validated settings with perftest's defaults and dependencies applied ({@link
         * SettingsResolver} holds the rules that tie the common options together).
         *
         * @throws ParameterException naming the option on invalid input
         */
        PerftestSettings settings() {
            return new SettingsResolver(this).resolve();
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
