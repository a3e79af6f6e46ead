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

    /** The test's command: its name, summary and option groups, perftest's defaults and refusals. */
    static CommandLine of(TestKind kind) {
        CommandLine test = new CommandLine(new TestCommand(kind));
        CommandSpec spec = test.getCommandSpec();
        spec.name(kind.command());
        spec.usageMessage().description(summary(kind));
        List<Class<?>> groups = new ArrayList<>(kind.bandwidth() ? BANDWIDTH : LATENCY);
        groups.addAll(GROUPS.get(kind));
        for (Class<?> group : groups) {
            Object options = newGroup(group);
            if (options instanceof RefusedOptions.DataValidation refusals) {
                refusals.mixee = spec;   // picocli injects @Spec(MIXEE) into a mixin declared by a field only
            }
            spec.addMixin(mixinName(group), CommandSpec.forAnnotatedObject(options));
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
    private static final List<Class<?>> LATENCY = List.of(ReportOptions.Latency.class, RunOptions.Latency.class);
    private static final List<Class<?>> BANDWIDTH = List.of(ReportOptions.Bandwidth.class,
            RunOptions.Bandwidth.class, BandwidthOptions.class, PostOptions.Lists.class, AddressOptions.DualPort.class,
            PayloadOptions.class, RateOptions.class);
    private static final Map<TestKind, List<Class<?>>> GROUPS = Map.of(
            TestKind.SEND_LAT, List.of(SendOptions.class, PostOptions.Srq.class, EventOptions.class,
                    InlineOptions.class, PayloadOptions.class, OperationOptions.class, CompletionVectorOption.class,
                    AddressOptions.Multicast.class),
            TestKind.SEND_BW, List.of(SendOptions.class, PostOptions.Srq.class, EventOptions.class,
                    InlineOptions.class, RefusedOptions.DataValidation.class, CompletionVectorOption.class,
                    AddressOptions.Multicast.class, AddressOptions.Connectionless.class, OperationOptions.class),
            TestKind.WRITE_LAT, List.of(InlineOptions.class, NullMrOptions.class, WriteImmediateOptions.class),
            TestKind.WRITE_BW, List.of(InlineOptions.class, NullMrOptions.class, WriteImmediateOptions.class,
                    DataValidationOptions.class),
            TestKind.READ_LAT, List.of(EventOptions.class, OutstandingOptions.class, PayloadOptions.class,
                    NullMrOptions.class, CompletionVectorOption.class),
            TestKind.READ_BW, List.of(EventOptions.class, OutstandingOptions.class, CompletionVectorOption.class,
                    NullMrOptions.class, DataValidationOptions.class),
            TestKind.ATOMIC_LAT, List.of(OutstandingOptions.class, AtomicOptions.class, EventOptions.class,
                    PayloadOptions.class, CompletionVectorOption.class),
            TestKind.ATOMIC_BW, List.of(OutstandingOptions.class, AtomicOptions.class,
                    RefusedOptions.DataValidation.class, CompletionVectorOption.class, EventOptions.class));

    /** A group's mixin name: its class name; "refusalsOf..." for a refusal group (the mapping page lists those). */
    private static String mixinName(Class<?> group) {
        String name = group.getName().substring(group.getPackageName().length() + 1);
        return group.getEnclosingClass() == RefusedOptions.class ? "refusalsOf" + name : name;
    }

    private static Object newGroup(Class<?> group) {
        try {
            var constructor = group.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("option group " + group.getName() + " cannot be created", e);
        }
    }
}
