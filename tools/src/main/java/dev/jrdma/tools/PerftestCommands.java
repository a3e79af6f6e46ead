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

        // One method per option group of PerftestSettings, each owned by its group's mixin: a test
        // offers a group by declaring its mixin, which mixin(Class) finds (null where not offered).

        ReportSettings reports(int duration) {
            return ReportOptions.resolve(spec, kind(), reportOptions, mixin(ReportOptions.Latency.class),
                    mixin(ReportOptions.Bandwidth.class), duration);
        }

        RunSettings run() {
            EventOptions e = mixin(EventOptions.class);
            return RunOptions.resolve(spec, kind(), runOptions, mixin(RunOptions.Latency.class),
                    mixin(RunOptions.Bandwidth.class), common.all, e != null && e.events, bidirectional(),
                    common.rdmaCm);
        }

        /**
         * The test's mixin of {@code type}, or null when the test does not offer that option group:
         * the one way a group's options are found, whether Base or the test declares the mixin.
         */
        <T> T mixin(Class<T> type) {
            for (CommandSpec m : spec.mixins().values()) {
                if (type.isInstance(m.userObject())) {
                    return type.cast(m.userObject());
                }
            }
            return null;
        }

        PostSettings posting() {
            return PostOptions.resolve(spec.commandLine(), kind(), postCommon, mixin(PostOptions.Lists.class),
                    mixin(PostOptions.Srq.class), common.iters, common.duration != null, bidirectional());
        }

        AddressSettings addressing() {
            BandwidthOptions bw = mixin(BandwidthOptions.class);
            int qps = bw != null ? bw.qps : 1;
            return AddressOptions.resolve(spec, kind(), host, addressOptions, mixin(AddressOptions.Multicast.class),
                    mixin(AddressOptions.Connectionless.class), mixin(AddressOptions.DualPort.class),
                    common.connection, common.rdmaCm, bidirectional(), qps);
        }

        RateSettings rate() {
            RateOptions r = mixin(RateOptions.class);
            return r == null ? RateSettings.DEFAULT : r.resolve(spec, kind(), bidirectional());
        }

        MemorySettings memory() {
            long maxSize = common.all ? PerftestSettings.sweep(kind()).getLast() : common.size;
            return memoryOptions.resolve(spec, mixin(PayloadOptions.class), mixin(NullMrOptions.class), maxSize,
                    common.pinCpu != null);
        }

        OperationSettings operations() {
            return OperationOptions.resolve(spec, mixin(OperationOptions.class), mixin(WriteImmediateOptions.class),
                    mixin(DataValidationOptions.class), common, memory());
        }

        /** -b on a test that offers it. */
        boolean bidirectional() {
            BandwidthOptions b = mixin(BandwidthOptions.class);
            return b != null && b.bidirectional;
        }
    }

    /** The groups every latency test offers. */
    abstract static class LatencyTest extends Base {
        @Mixin ReportOptions.Latency latencyReports;
        @Mixin RunOptions.Latency latencyRun;
    }

    /** The groups every bandwidth test offers (perftest's BW binaries share them). */
    abstract static class BandwidthTest extends Base {
        @Mixin ReportOptions.Bandwidth bandwidthReports;
        @Mixin RunOptions.Bandwidth bandwidthRun;
        @Mixin BandwidthOptions bandwidthOptions;
        @Mixin PostOptions.Lists postListOptions;
        @Mixin AddressOptions.DualPort dualPortOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin RateOptions rateOptions;
    }

    @Command(name = "send-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Send latency (ping-pong of sends), like ib_send_lat.")
    static final class SendLat extends LatencyTest {
        @Mixin SendOptions sendOptions;
        @Mixin PostOptions.Srq srqOptions;
        @Mixin EventOptions eventOptions;
        @Mixin InlineOptions inlineOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin OperationOptions operationOptions;
        @Mixin CompletionVectorOption vectorOption;
        @Mixin AddressOptions.Multicast multicastOptions;

        @Override TestKind kind() { return TestKind.SEND_LAT; }
    }

    @Command(name = "send-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Send bandwidth, like ib_send_bw.")
    static final class SendBw extends BandwidthTest {
        @Mixin SendOptions sendOptions;
        @Mixin PostOptions.Srq srqOptions;
        @Mixin EventOptions eventOptions;
        @Mixin InlineOptions inlineOptions;
        @Mixin RefusedOptions.DataValidation refusalsOfDataValidation;
        @Mixin CompletionVectorOption vectorOption;
        @Mixin AddressOptions.Multicast multicastOptions;
        @Mixin AddressOptions.Connectionless connectionlessOptions;
        @Mixin OperationOptions operationOptions;

        @Override TestKind kind() { return TestKind.SEND_BW; }
    }

    @Command(name = "write-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA write latency (each side polls the last byte the peer wrote), like ib_write_lat.")
    static final class WriteLat extends LatencyTest {
        @Mixin InlineOptions inlineOptions;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin WriteImmediateOptions writeImmediateOptions;

        @Override TestKind kind() { return TestKind.WRITE_LAT; }
    }

    @Command(name = "write-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA write bandwidth, like ib_write_bw.")
    static final class WriteBw extends BandwidthTest {
        @Mixin InlineOptions inlineOptions;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin WriteImmediateOptions writeImmediateOptions;
        @Mixin DataValidationOptions dataValidationOptions;

        @Override TestKind kind() { return TestKind.WRITE_BW; }
    }

    @Command(name = "read-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA read latency (client round trips), like ib_read_lat.")
    static final class ReadLat extends LatencyTest {
        @Mixin EventOptions eventOptions;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin CompletionVectorOption vectorOption;

        @Override TestKind kind() { return TestKind.READ_LAT; }
    }

    @Command(name = "read-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "RDMA read bandwidth, like ib_read_bw.")
    static final class ReadBw extends BandwidthTest {
        @Mixin EventOptions eventOptions;
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin CompletionVectorOption vectorOption;
        @Mixin NullMrOptions nullMrOptions;
        @Mixin DataValidationOptions dataValidationOptions;

        @Override TestKind kind() { return TestKind.READ_BW; }
    }

    @Command(name = "atomic-lat", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Atomic latency (client round trips), like ib_atomic_lat.")
    static final class AtomicLat extends LatencyTest {
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin AtomicOptions atomicOptions;
        @Mixin EventOptions eventOptions;
        @Mixin PayloadOptions payloadOptions;
        @Mixin CompletionVectorOption vectorOption;

        @Override TestKind kind() { return TestKind.ATOMIC_LAT; }
    }

    @Command(name = "atomic-bw", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Atomic bandwidth, like ib_atomic_bw.")
    static final class AtomicBw extends BandwidthTest {
        @Mixin OutstandingOptions outstandingOptions;
        @Mixin AtomicOptions atomicOptions;
        @Mixin RefusedOptions.DataValidation refusalsOfDataValidation;
        @Mixin CompletionVectorOption vectorOption;
        @Mixin EventOptions eventOptions;

        @Override TestKind kind() { return TestKind.ATOMIC_BW; }
    }
}
