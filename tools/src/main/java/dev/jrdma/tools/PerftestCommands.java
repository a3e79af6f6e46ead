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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The eight perftest tests as subcommands, with perftest's option names and per-test defaults
 * (perftest 6.06): one command class, made per {@link TestKind} by {@link #of}. Options shared by
 * all tests live in mixins; each test adds the groups perftest offers for it ({@link #GROUPS}).
 * No host argument = server, a host = client.
 */
final class PerftestCommands {
    private PerftestCommands() {
    }

    /** What every test command does: resolve and validate the settings, then run. */
    @Command(versionProvider = VersionProvider.class)
    static final class TestCommand implements Callable<Integer> {
        private final TestKind kind;

        TestCommand(TestKind kind) {
            this.kind = kind;
        }

        @Spec
        CommandSpec spec;

        @Mixin
        CommonOptions common;

        /** perftest's options for hardware jrdma cannot use: parsed, then refused by name (exit 2). */
        @Mixin
        RefusedOptions refusals;

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

        TestKind kind() {
            return kind;
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

        // One method per option group of PerftestSettings, each owned by its group's mixin: a test
        // offers a group by its row of GROUPS, which mixin(Class) finds (null where not offered).

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
         * the one way a group's options are found, whether a field or {@link #GROUPS} declares the mixin.
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
            return PostOptions.resolve(spec, kind(), postCommon, mixin(PostOptions.Lists.class),
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

    /** The test's command: its name, summary and option groups, perftest's defaults and refusals. */
    static CommandLine of(TestKind kind) {
        CommandLine test = new CommandLine(new TestCommand(kind));
        CommandSpec spec = test.getCommandSpec();
        spec.name(kind.command());
        spec.usageMessage().description(summary(kind));
        List<Supplier<?>> groups = new ArrayList<>(kind.bandwidth() ? BANDWIDTH : LATENCY);
        groups.addAll(GROUPS.get(kind));
        for (Supplier<?> group : groups) {
            Object options = group.get();
            if (options instanceof RefusedOptions.DataValidation refusals) {
                refusals.mixee = spec;   // picocli injects @Spec(MIXEE) into a mixin declared by a field only
            }
            spec.addMixin(mixinName(options.getClass()), CommandSpec.forAnnotatedObject(options));
        }
        NoEffectOptions.addTo(spec);   // perftest's options that ask for what jrdma does anyway
        spec.mixinStandardHelpOptions(true);   // -h and -V after the groups: last in the reference's lists
        test.setDefaultValueProvider(new PerftestOptions.Defaults(kind));   // perftest's per-binary DEF_* values
        RefusedOptions.addTo(spec);
        return test;
    }

    private static String summary(TestKind kind) {
        return switch (kind) {
            case SEND_LAT -> "Send latency (ping-pong of sends), like ib_send_lat.";
            case SEND_BW -> "Send bandwidth, like ib_send_bw.";
            case WRITE_LAT -> "RDMA write latency (each side polls the last byte the peer wrote), like ib_write_lat.";
            case WRITE_BW -> "RDMA write bandwidth, like ib_write_bw.";
            case READ_LAT -> "RDMA read latency (client round trips), like ib_read_lat.";
            case READ_BW -> "RDMA read bandwidth, like ib_read_bw.";
            case ATOMIC_LAT -> "Atomic latency (client round trips), like ib_atomic_lat.";
            case ATOMIC_BW -> "Atomic bandwidth, like ib_atomic_bw.";
        };
    }

    /*
     * The option groups each test offers beyond TestCommand's own, as perftest's usage() lists
     * them per binary: those of every latency or every bandwidth test, then the test's own.
     */
    private static final List<Supplier<?>> LATENCY = groups(ReportOptions.Latency::new, RunOptions.Latency::new);
    private static final List<Supplier<?>> BANDWIDTH = groups(ReportOptions.Bandwidth::new,
            RunOptions.Bandwidth::new, BandwidthOptions::new, PostOptions.Lists::new, AddressOptions.DualPort::new,
            PayloadOptions::new, RateOptions::new);
    private static final Map<TestKind, List<Supplier<?>>> GROUPS = Map.of(
            TestKind.SEND_LAT, groups(SendOptions::new, PostOptions.Srq::new, EventOptions::new,
                    InlineOptions::new, PayloadOptions::new, OperationOptions::new, CompletionVectorOption::new,
                    AddressOptions.Multicast::new),
            TestKind.SEND_BW, groups(SendOptions::new, PostOptions.Srq::new, EventOptions::new,
                    InlineOptions::new, RefusedOptions.DataValidation::new, CompletionVectorOption::new,
                    AddressOptions.Multicast::new, AddressOptions.Connectionless::new, OperationOptions::new),
            TestKind.WRITE_LAT, groups(InlineOptions::new, NullMrOptions::new, WriteImmediateOptions::new),
            TestKind.WRITE_BW, groups(InlineOptions::new, NullMrOptions::new, WriteImmediateOptions::new,
                    DataValidationOptions::new),
            TestKind.READ_LAT, groups(EventOptions::new, OutstandingOptions::new, PayloadOptions::new,
                    NullMrOptions::new, CompletionVectorOption::new),
            TestKind.READ_BW, groups(EventOptions::new, OutstandingOptions::new, CompletionVectorOption::new,
                    NullMrOptions::new, DataValidationOptions::new),
            TestKind.ATOMIC_LAT, groups(OutstandingOptions::new, AtomicOptions::new, EventOptions::new,
                    PayloadOptions::new, CompletionVectorOption::new),
            TestKind.ATOMIC_BW, groups(OutstandingOptions::new, AtomicOptions::new,
                    RefusedOptions.DataValidation::new, CompletionVectorOption::new, EventOptions::new));

    private static List<Supplier<?>> groups(Supplier<?>... groups) {
        return List.of(groups);
    }

    /** A group's mixin name: its class name; "refusalsOf..." for a refusal group (the mapping page lists those). */
    private static String mixinName(Class<?> group) {
        String name = group.getName().substring(group.getPackageName().length() + 1);
        return group.getEnclosingClass() == RefusedOptions.class ? "refusalsOf" + name : name;
    }
}
