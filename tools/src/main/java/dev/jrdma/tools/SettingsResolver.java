// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.exclusive;
import static dev.jrdma.tools.UsageErrors.optional;
import static dev.jrdma.tools.UsageErrors.range;
import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.PerftestOptions.AtomicOptions;
import dev.jrdma.tools.PerftestOptions.BandwidthOptions;
import dev.jrdma.tools.PerftestOptions.CommonOptions;
import dev.jrdma.tools.PerftestOptions.EventOptions;
import dev.jrdma.tools.PerftestOptions.InlineOptions;
import dev.jrdma.tools.PerftestOptions.OutstandingOptions;
import dev.jrdma.tools.PerftestOptions.SendOptions;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.PostSettings;
import dev.jrdma.tools.perftest.ResultPlot;
import dev.jrdma.tools.perftest.RunSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.TestKind.AtomicType;
import dev.jrdma.tools.perftest.TestKind.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Turns one test command's parsed options into {@link PerftestSettings}: the range checks, the
 * options that exclude each other, and perftest's {@code force_dependecies} (queue depths clamped to
 * the iterations, CQ moderation, no peak). It lives apart from {@link PerftestCommands} so that the
 * commands only declare which option groups each test offers, and this one place holds the rules
 * that tie the common options together; each group's own rules stay in its mixin, reached through
 * the command's hooks ({@code run()}, {@code posting()}, ...).
 */
final class SettingsResolver {
    private final PerftestCommands.TestCommand test;
    private final CommandSpec spec;

    SettingsResolver(PerftestCommands.TestCommand test) {
        this.test = test;
        this.spec = test.spec;
    }

    /**
     * The validated settings with perftest's defaults and dependencies applied.
     *
     * @throws ParameterException naming the option on invalid input
     */
    PerftestSettings resolve() {
        TestKind k = test.kind();
        CommonOptions c = test.common;
        // The option groups this test offers (null where it does not).
        AddressOptions.Multicast multicastOptions = test.mixin(AddressOptions.Multicast.class);
        EventOptions eventOptions = test.mixin(EventOptions.class);
        SendOptions sendOptions = test.mixin(SendOptions.class);
        InlineOptions inlineOptions = test.mixin(InlineOptions.class);
        BandwidthOptions bandwidthOptions = test.mixin(BandwidthOptions.class);
        OutstandingOptions outstandingOptions = test.mixin(OutstandingOptions.class);
        AtomicOptions atomicOptions = test.mixin(AtomicOptions.class);
        CompletionVectorOption vectorOption = test.mixin(CompletionVectorOption.class);
        if (multicastOptions != null && multicastOptions.multicast) {
            c.connection = Connection.UD;   // perftest: -g makes the test UD
        }
        RunSettings runSettings = test.run();
        range(spec, "'--size' (-s)", c.size, 1, TestKind.MAX_SIZE);
        if (k.verb() == dev.jrdma.tools.perftest.Verb.ATOMIC && c.size != 8) {
            throw usage(spec, "option '--size' (-s): atomic operations are 8 bytes, got " + c.size);
        }
        range(spec, "'--iters' (-n)", c.iters, 5, TestKind.MAX_ITERS);
        range(spec, "'--ib-port' (-i)", c.ibPort, 1, 255);
        range(spec, "'--port' (-p)", c.port, 1, 65535);
        range(spec, "'--tx-depth' (-t)", c.txDepth, 1, 1 << 24);
        range(spec, "'--qp-timeout' (-u)", c.qpTimeout, 0, 31);
        range(spec, "'--retry-count'", c.retryCount, 0, 7);
        range(spec, "'--sl' (-S)", c.sl, 0, 15);
        range(spec, "'--timeout'", c.timeoutSeconds, 1, 86_400);
        range(spec, "'--warm-up'", c.warmUp, 0, 100_000_000);
        if (c.pinCpu != null) {
            range(spec, "'--pin-cpu'", c.pinCpu, 0, dev.jrdma.tools.perftest.CpuAffinity.MAX_CPUS - 1);
        }
        List<Integer> pinCpus = pinCpus(c);
        int gidIndex = optional(spec, "'--gid-index' (-x)", c.gidIndex, 0, 64, -1);   // perftest: MIN_GID_IX..MAX_GID_IX
        int mtu = 0;
        if (c.mtu != null) {
            if (!Set.of(256, 512, 1024, 2048, 4096).contains(c.mtu)) {
                throw usage(spec, "option '--mtu' (-m): must be 256, 512, 1024, 2048 or 4096, got " + c.mtu);
            }
            mtu = c.mtu;
        }
        if (!k.connections().contains(c.connection)) {
            throw usage(spec, "option '--connection' (-c): " + c.connection + " is not available for " + k.command()
                    + " (choose " + names(k.connections()) + ")");
        }
        if (c.output != null && !k.outputs().contains(c.output)) {
            throw usage(spec, "option '--output': " + c.output + " is not available for " + k.command() + " (choose "
                    + names(k.outputs()) + ")");
        }
        int formats = (c.json ? 1 : 0) + (c.csv ? 1 : 0) + (c.output != null ? 1 : 0);
        if (formats > 1) {
            throw usage(spec, "options '--json', '--csv' and '--output' exclude each other");
        }
        int duration = optional(spec, "'--duration' (-D)", c.duration, 1, 86_400, 0);
        if (c.duration != null && c.all) {
            throw exclusive(spec, "'--all' (-a)", "'--duration' (-D)");
        }
        if (runSettings.runInfinitely() && duration == 0) {
            duration = RunSettings.DEFAULT_PERIOD_SECONDS;   // perftest: a DURATION run, -D's default period
        }
        if (c.histogram != null && k.bandwidth()) {
            throw usage(spec, "option '--histogram': only latency tests have a latency distribution");
        }
        if (c.plot != null) {
            if (ResultPlot.Format.of(c.plot) == null) {
                throw usage(spec, "option '--plot': FILE must end in .png or .svg, got '" + c.plot + "'");
            }
            if (k.bandwidth() && !c.all) {
                throw usage(spec, "option '--plot': a BW test draws BW and message rate vs size, which needs --all (-a)");
            }
        }
        boolean eventsGiven = eventOptions != null && eventOptions.events;
        if (duration > 0 && eventsGiven) {
            // perftest: "Duration mode doesn't work with events."
            throw exclusive(spec, "'--duration' (-D)", "'--events' (-e)");
        }
        if (c.rdmaCm && c.retryCount != 7) {
            // perftest's --retry_count sets rdma_cm's retry_count; jrdma's rdma_cm connects with 7.
            throw usage(spec, "option '--retry-count' (--retry_count): with --rdma_cm (-R) jrdma connects with "
                    + "rdma_cm's retry count 7, got " + c.retryCount);
        }
        if (c.rdmaCm && c.connection == Connection.UC) {
            // perftest: "UC is not supported in librdmacm" (rdma_cm has no UC port space).
            throw usage(spec, "option '--rdma_cm' (-R): UC is not supported by rdma_cm (use RC or UD)");
        }
        List<Long> sizes = c.all ? PerftestSettings.sweep(k) : List.of(c.size);
        long iters = c.iters;
        // perftest clamps the queue depths to the iteration count (force_dependecies).
        int txDepth = duration == 0 ? (int) Math.min(c.txDepth, iters) : c.txDepth;

        // --write_with_imm: each write consumes a receive, posted as for a send test (perftest's DEF_RX_SEND).
        int rxDepth = test.operations().writeWithImmediate() ? (int) (duration == 0 ? Math.min(512, iters) : 512)
                : k.defaultRxDepth();
        if (sendOptions != null) {
            range(spec, "'--rx-depth' (-r)", sendOptions.rxDepth, 1, 1 << 24);
            rxDepth = duration == 0 ? (int) Math.min(sendOptions.rxDepth, iters) : sendOptions.rxDepth;
            // force_dependecies: UC and UD lose a SEND that finds no receive, so an rx depth of 512
            // (the default, or -r 512) becomes -n, up to UC_MAX_RX 16000, when iterations are counted.
            if (duration == 0 && c.connection != Connection.RC && rxDepth == k.defaultRxDepth()) {
                rxDepth = (int) Math.min(iters, 16_000);
            }
        }
        int inlineSize = -1;
        if (inlineOptions != null) {
            range(spec, "'--inline_size' (-I)", inlineOptions.inlineSize, 0, 1 << 16);
            boolean explicit = spec.commandLine().getParseResult().hasMatchedOption("--inline_size");
            inlineSize = explicit ? inlineOptions.inlineSize : -1;
        }
        int qps = 1;
        int cqMod = 1;
        boolean bidirectional = false;
        boolean noPeak = false;
        boolean gbits = false;
        if (bandwidthOptions != null) {
            BandwidthOptions b = bandwidthOptions;
            range(spec, "'--qp' (-q)", b.qps, 1, 16_384);
            range(spec, "'--cq-mod' (-Q)", b.cqMod, 1, 1 << 16);
            qps = b.qps;
            cqMod = b.cqMod;
            // force_dependecies: no CQ moderation for messages > 8 KiB unless asked for (not for UD,
            // -a or -e), and never more than the TX depth.
            boolean cqModGiven = spec.commandLine().getParseResult().hasMatchedOption("--cq-mod");
            if (!cqModGiven && !c.all && c.size > 8192 && c.connection != Connection.UD
                    && !(eventOptions != null && eventOptions.events)) {
                cqMod = 1;
            }
            cqMod = Math.min(cqMod, txDepth);
            bidirectional = b.bidirectional;
            gbits = b.reportGbits;
            // perftest forces no peak for duration runs, the send_bw server and > 20000 iterations.
            noPeak = b.noPeak || duration > 0 || iters > 20_000
                    || (k == TestKind.SEND_BW && !runSettings.testClient(test.host != null) && !bidirectional);
        }
        int outReads = outstandingOptions == null ? -1
                : optional(spec, "'--outs' (-o)", outstandingOptions.outReads, 1, 65_535, -1);
        AtomicType atomicType = atomicOptions != null ? atomicOptions.atomicType : null;
        boolean events = eventOptions != null && eventOptions.events;
        PostSettings posting = test.posting();   // -l sets -Q, an SRQ the UC/UD rx depth (force_dependecies)
        cqMod = PostOptions.cqMod(spec, posting, cqMod,
                spec.commandLine().getParseResult().hasMatchedOption("--cq-mod"));
        rxDepth = PostOptions.rxDepth(posting, c.connection, iters, duration > 0, rxDepth);
        PostOptions.check(spec, posting, k, iters, duration > 0, txDepth, rxDepth, qps);
        boolean sizeGiven = spec.commandLine().getParseResult().hasMatchedOption("--size");
        int vector = vectorOption == null ? -1 : vectorOption.resolve(spec, events);
        return new PerftestSettings(k, test.host, c.device, c.ibPort, gidIndex, c.port,
                mtu, c.connection, c.rdmaCm, c.qpTimeout, c.retryCount, c.sl, sizes, sizeGiven, iters, duration,
                txDepth, rxDepth, inlineSize, qps, cqMod, bidirectional, noPeak, gbits, events, outReads, atomicType,
                c.output, c.json, c.csv, c.histogram, c.plot, Duration.ofSeconds(c.timeoutSeconds), c.warmUp,
                pinCpus,
                test.reports(duration), runSettings, posting, test.addressing(), test.rate(), test.memory(),
                test.operations(), vector, test.dlidOption.resolve(spec));
    }

    /** --pin-cpu's one CPU or --pin_cores' list (perftest 26.04's syntax: 0,2,4-7). */
    private List<Integer> pinCpus(CommonOptions c) {
        if (c.pinCores == null) {
            return c.pinCpu == null ? List.of() : List.of(c.pinCpu);
        }
        if (c.pinCpu != null) {
            throw exclusive(spec, "'--pin-cpu'", "'--pin_cores'");
        }
        try {
            return dev.jrdma.tools.perftest.CpuAffinity.parseList(c.pinCores);
        } catch (IllegalArgumentException e) {
            throw usage(spec, "option '--pin_cores': " + e.getMessage());
        }
    }

    private static String names(Set<? extends Enum<?>> values) {
        return values.stream().map(Enum::name).collect(Collectors.joining(", "));
    }
}
