// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Context;
import dev.jrdma.DeviceAttributes;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.Mtu;
import dev.jrdma.PortState;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.CpuAffinity;
import dev.jrdma.tools.perftest.NumaNodes;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestListener;
import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.PerftestSchedule;
import dev.jrdma.tools.perftest.PerftestSession;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.ProgressLine;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The device part of the perftest-compatible tests, on the public dev.jrdma API: opens the
 * device, sets up this {@link Side}, warms the JIT up ({@link WarmUp}), connects with the peer's
 * key records and runs perftest's measurement loops ({@link LatencyLoops}, {@link BandwidthLoops}),
 * while {@link PerftestSession} drives the out-of-band exchange over TCP or, with -R, rdma_cm
 * ({@link RdmaCmSetup}); {@link RunOutput} prints.
 */
public final class PerftestRunner implements PerftestSession.Device {
    private final PerftestSettings s;
    private final Console console;
    private final Side side;
    private final RunOutput output;
    private final WarmUp warmUp;
    private final boolean duration;
    private RdmaCmSetup rdmaCm;
    /** The out-of-band channel of the schedule (--run_infinitely watches it for the peer's stop). */
    private PerftestChannel oob;
    private BwReportData lastReport;
    private String peerVersion = "";
    private TestInfo info;
    /** --pin-cpu: the measuring thread's binding, undone when the run ends. */
    private CpuAffinity.Pinned pinned;
    private NumaNodes.Bound numaBound;

    private PerftestRunner(PerftestSettings s, Console console) {
        this.s = s;
        this.console = console;
        this.side = new Side(s, Completions.SPINS_PER_CLOCK_READ - 1);
        this.output = new RunOutput(s, console.out());
        this.warmUp = new WarmUp(side, console);
        this.duration = s.durationSeconds() > 0;
    }

    /** Runs the test; the exit code. Failures are exceptions (exit code 1 with their message). */
    public static int run(PerftestSettings s, Console console) throws IOException {
        String unsupported = unsupported(s);
        if (unsupported != null) {
            console.error(unsupported + " is not implemented yet in jrdma's device part");
            return ExitCode.FAILURE;
        }
        List<RdmaDevice> devices = Rdma.devices();
        RdmaDevice device;
        if (s.device() != null) {
            device = findDevice(console, devices, s.device());
            if (device == null) {
                return ExitCode.FAILURE;
            }
        } else if (devices.isEmpty()) {
            console.error(NoDevice.MESSAGE);
            return ExitCode.FAILURE;
        } else {
            device = devices.getFirst();
        }
        PerftestRunner r = new PerftestRunner(s, console);
        if (!s.pinCpus().isEmpty()) {
            // Checked now, bound after the warm-up (pinMeasuringThread): its twin threads would
            // inherit the binding and share the one CPU with each other.
            try {
                CpuAffinity.checkAvailable(s.pinCpus());
            } catch (IllegalArgumentException | IllegalStateException e) {
                console.error("--pin-cpu: " + e.getMessage());
                return ExitCode.FAILURE;
            }
        }
        try (Context context = device.open()) {
            r.side.context = context;
            int code = r.session();
            String below = r.output.verifierError();
            if (below != null) {
                console.error(below);   // -w/-y: perftest's line, exit 1 after the report
                code = ExitCode.FAILURE;
            }
            RunControl.waitDestroy(s, r.output);
            return code;
        } finally {
            if (r.pinned != null) {
                r.pinned.close();   // an in-process caller (tests) gets its thread back as it was
            }
            if (r.numaBound != null) {
                r.numaBound.close();
            }
            if (r.side.post != null) {
                r.side.post.closeBuffers();   // the context closed the regions; this unmaps --mmap's or huge pages
            }
        }
    }

    /**
     * The device called {@code name}, or null after printing the available ones on stderr (the
     * caller exits with 1).
     */
    public static RdmaDevice findDevice(Console console, List<RdmaDevice> devices, String name) {
        for (RdmaDevice d : devices) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        String available = devices.isEmpty() ? "none"
                : String.join(", ", devices.stream().map(RdmaDevice::name).toList());
        console.error("no RDMA device '" + name + "' (available: " + available + ")");
        return null;
    }

    private static String unsupported(PerftestSettings s) {
        if (s.rdmaCm() && s.connection() == TestKind.Connection.UD) {
            return "-R (rdma_cm) with -c UD";
        }
        if (s.rdmaCm() && s.qps() > 1) {
            return "-R (rdma_cm) with -q above 1";
        }
        return null;
    }

    /**
     * --pin-cpu: binds the calling (measuring) thread, once the warm-up's threads have ended and
     * before the peer connects; a thread started by a bound thread would inherit the binding.
     */
    private void pinMeasuringThread() throws IOException {
        if (s.memory().numaNode() >= 0 && numaBound == null) {
            // --numa_node: the buffer is allocated (and zeroed) after this, so first touch puts it on the node.
            numaBound = NumaNodes.bindCurrentThread(s.memory().numaNode());
        }
        if (s.pinCpus().isEmpty() || pinned != null) {
            return;
        }
        try {
            pinned = CpuAffinity.pinCurrentThread(s.pinCpus());
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IOException("--pin-cpu: " + e.getMessage(), e);
        }
    }

    /** The port, GID, read depth and inline size on the opened device; this side's MTU. */
    private Mtu configure() throws IOException {
        Context context = side.context;
        DeviceAttributes attrs = context.queryDevice();
        if (s.ibPort() > attrs.physicalPortCount()) {
            throw new IOException(context.name() + " has " + attrs.physicalPortCount() + " port(s), no port " + s.ibPort());
        }
        side.port = context.queryPort(s.ibPort());
        if (side.port.state() != PortState.ACTIVE) {
            throw new IOException(context.name() + " port " + s.ibPort() + " is " + side.port.state() + ", not ACTIVE");
        }
        Addressing.check(s, context, attrs.physicalPortCount(), side.port.isEthernet());
        chooseGid();
        PostResources.checkDevice(context, s.posting());   // --no_lock: before the warm-up builds anything
        Verb verb = side.verb;
        if (verb == Verb.READ || verb == Verb.ATOMIC) {
            int max = Math.min(attrs.maxQpRdAtom(), attrs.maxQpInitRdAtom());
            side.outReads = s.outReads() > 0 ? Math.min(s.outReads(), max) : max;
        } else {
            side.outReads = 1;
        }
        side.inlineSize = s.inlineSize() >= 0 ? s.inlineSize()
                : context.name().startsWith("mlx") ? s.kind().defaultInline(s.connection()) : 0;
        return s.mtu() == 0 ? side.port.activeMtu() : mtuOf(s.mtu());
    }

    private void chooseGid() {
        Context context = side.context;
        int gidIndex = s.gidIndex() >= 0 ? s.gidIndex() : Addressing.defaultGidIndex(s);
        if (gidIndex >= 0) {
            Optional<GidEntry> e = context.gid(s.ibPort(), gidIndex);
            if (e.isEmpty()) {
                throw new IllegalArgumentException("GID index " + gidIndex + " of " + context.name() + " port "
                        + s.ibPort() + " is not in use (see 'jrdma devinfo -v')");
            }
            side.gid = e.get().gid();
            side.gidIndex = gidIndex;
            return;
        }
        List<GidEntry> table = context.gidTable(s.ibPort());
        if (!side.port.isEthernet()) {
            side.gid = null;   // InfiniBand: LID routing, no GID exchanged (perftest's gid_index -1)
            side.gidIndex = table.isEmpty() ? 0 : table.getFirst().index();
            return;
        }
        GidEntry best = Addressing.preferredGid(s, table)
                .or(() -> table.stream().filter(g -> g.type() == GidType.ROCE_V2).findFirst())
                .or(() -> table.stream().findFirst())
                .orElseThrow(() -> new IllegalStateException(context.name() + " port " + s.ibPort()
                        + " has no GID (RoCE needs one)"));
        side.gid = best.gid();
        side.gidIndex = best.index();
    }

    private static Mtu mtuOf(int bytes) {
        for (Mtu m : Mtu.values()) {
            if (m.bytes() == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("no MTU of " + bytes + " bytes");
    }

    private int session() throws IOException {
        Mtu myMtu = configure();
        output.open(side.context.name(), s.ibPort());
        RunControl.warnCpuUtil(s, console);
        if (s.addressing().connectionless()) {
            return connectionlessSession(myMtu);
        }
        if (s.rdmaCm()) {
            try (RdmaCmSetup cm = new RdmaCmSetup(s)) {
                rdmaCm = cm;
                return rdmaCmSession(myMtu);
            }
        }
        // The server warms up before listening: a client that finds the port open starts its own
        // warm-up or run, and two warm-ups at once would share the CPUs (four spinning threads on
        // a 2-CPU VM).
        warmUp.run(myMtu);
        pinMeasuringThread();
        if (s.addressing().commRdmaCm()) {
            try (RdmaCmSetup cm = new RdmaCmSetup(s)) {
                return verbsSession(myMtu, PerftestChannel.overRdmaCm(cm.control(output::waiting),
                        side.gid == null ? -1 : side.gidIndex));
            }
        }
        PerftestChannel ch;
        if (s.client()) {
            ch = PerftestChannel.connect(s.host(), s.port(), s.timeout(), Addressing.source(s, 0),
                    s.addressing().ipv6Address());
        } else {
            output.waiting();
            InetSocketAddress bindTo = Addressing.source(s, s.port());
            try (PerftestListener l = PerftestChannel.listen(bindTo != null ? bindTo : new InetSocketAddress(s.port()))) {
                ch = l.accept(s.timeout());
            }
        }
        return verbsSession(myMtu, ch);
    }

    /**
     * The test QPs created and connected by verbs, from the records exchanged over {@code ch}: TCP,
     * or with -z alone the rdma_cm control connection.
     */
    private int verbsSession(Mtu myMtu, PerftestChannel ch) throws IOException {
        try (PerftestChannel oob = ch) {
            preamble(oob, myMtu);
            side.createResources(side.context, null);
            // -g: the receiving side's QPs join the group (and announce it) before the key exchange.
            java.io.Closeable group = Addressing.receivesMulticast(s) ? Addressing.joinMulticast(side) : null;
            try {
                runSchedule(oob, List.copyOf(side.mine));
            } finally {
                if (group != null) {
                    group.close();
                }
            }
        }
        finish();
        return ExitCode.OK;
    }

    /**
     * -R: the control connection, the preamble over it, then the schedule; the test QPs come
     * with {@link #connectRdmaCm}, so the records given to the schedule are placeholders until
     * then. The server warms up before listening, as over TCP (and a connect request left
     * unanswered for the warm-up could time out in the CM); the client retries until it listens.
     */
    private int rdmaCmSession(Mtu myMtu) throws IOException {
        warmUp.run(myMtu);
        pinMeasuringThread();
        RdmaCmControl control = rdmaCm.control(output::waiting);
        try (PerftestChannel oob = PerftestChannel.overRdmaCm(control, side.gid == null ? -1 : side.gidIndex)) {
            preamble(oob, myMtu);
            List<PeerInfo> placeholders = new ArrayList<>();
            for (int i = 0; i < s.qps(); i++) {
                placeholders.add(PeerInfo.zero(side.gid != null));
            }
            runSchedule(oob, placeholders);
        }
        finish();
        return ExitCode.OK;
    }

    /**
     * --connectionless (perftest's connectionless send_bw server): no out-of-band peer at all, so
     * no version, MTU or key exchange and no sync. The UD QPs use this port's MTU, join the group
     * (-g, -M) and go to RTS on their own; the header and this side's addresses are printed, the
     * receives posted, and the soak of --run_infinitely reports whatever any sender to the group
     * delivers, every -D seconds, until SIGINT. No sender is a row of zeros, not a timeout:
     * senders to a group come and go.
     */
    private int connectionlessSession(Mtu myMtu) throws IOException {
        warmUp.run(myMtu);
        pinMeasuringThread();
        side.agreedMtu = myMtu;
        side.mtuBytes = myMtu.bytes();
        side.sizes = s.sizesForMtu(side.mtuBytes);
        side.createResources(side.context, null);
        try (java.io.Closeable group = Addressing.joinMulticast(side)) {
            side.readyWithoutPeer();
            TestKind kind = s.kind();
            info = new TestInfo(kind.verb(), null, true, false, false, side.context.name(), s.qps(),
                    RunHeader.transport(side.context.device().transportType()), s.connection().name(),
                    s.posting().useSrq(), RunHeader.relaxOrder(Side.BUFFER_ACCESS), side.post.extendedPost ? "ON" : "OFF",
                    s.txDepth(), s.rxDepth(), s.posting().postList(), s.cqMod(), side.mtuBytes,
                    side.port.isEthernet() ? "Ethernet" : "IB", side.gid == null ? -1 : side.gidIndex, side.inlineSize,
                    side.outReads, false, s.events(), s.durationSeconds(), Math.max(0, s.completionVector()),
                    false);
            output.header(info);
            output.connection(side.mine, List.of());
            side.postReceives(0);
            run(0);
        }
        finish();
        return ExitCode.OK;
    }

    /** The version, system data and MTU exchange; the sizes follow from the agreed MTU. */
    private void preamble(PerftestChannel oob, Mtu myMtu) throws IOException {
        PerftestSession.Preamble pre = PerftestSession.preamble(oob, Side.PAGE_SIZE, Side.CACHE_LINE, myMtu.value(),
                !s.addressing().dontExchangeVersions());
        peerVersion = pre.peerVersion();
        side.agreedMtu = Mtu.of(pre.mtuEnum());   // exchangeMtu keeps it within 1..5
        side.mtuBytes = side.agreedMtu.bytes();
        side.sizes = s.sizesForMtu(side.mtuBytes);
    }

    /** After the preamble: the header, then the test's schedule with {@code records} as this side's. */
    private void runSchedule(PerftestChannel oob, List<PeerInfo> records) throws IOException {
        this.oob = oob;
        TestKind kind = s.kind();
        info = new TestInfo(kind.verb(), s.atomicType() == null ? null : s.atomicType().name(), kind.bandwidth(),
                s.bidirectional(), s.testClient(), side.context.name(), s.qps(),
                RunHeader.transport(side.context.device().transportType()), s.connection().name(),
                s.posting().useSrq(), RunHeader.relaxOrder(Side.BUFFER_ACCESS), side.post.extendedPost ? "ON" : "OFF",
                s.txDepth(), s.rxDepth(),
                s.posting().postList(), s.cqMod(), side.mtuBytes, side.port.isEthernet() ? "Ethernet" : "IB",
                side.gid == null ? -1 : side.gidIndex, side.inlineSize, side.outReads, s.rdmaCm(), s.events(),
                s.durationSeconds(), Math.max(0, s.completionVector()), s.addressing().commRdmaCm() && !s.rdmaCm());
        output.header(info);
        // The wait for the peer's run: a -D run's length is known, an iteration run's is not.
        // A --run_infinitely run's is not: it ends when the peer is stopped.
        Duration peerRun = duration && !s.run().runInfinitely()
                ? Duration.ofSeconds(s.durationSeconds()).plus(s.timeout()) : null;
        side.remote = PerftestSession.run(oob, kind, records, side.sizes.size(), PerftestSchedule.Options.of(s),
                peerRun, this);
    }

    @Override
    public void connect(List<PeerInfo> peers) throws IOException {
        side.remote = List.copyOf(peers);
        output.connection(side.mine, peers);
        side.checkGidUse(peers);
        side.connectQueuePairs(peers);
        HardwareRate.apply(side, console);
        side.postReceives(0);   // a send test's, before the sync that precedes the first run, as perftest does
        warmUp.settle();
    }

    @Override
    public List<PeerInfo> connectRdmaCm() throws IOException {
        rdmaCm.connectTestQueuePair(side);
        HardwareRate.apply(side, console);
        warmUp.settle();
        return List.copyOf(side.mine);
    }

    /**
     * -R: the peer's records after a key exchange. The first one also does what {@link #connect}
     * does after the QP transitions over TCP: print both sides' addresses and the table header,
     * and post the receives of a SEND test before the sync that precedes the first run.
     */
    @Override
    public void rdmaCmKeys(List<PeerInfo> peers) throws IOException {
        boolean first = side.remote.isEmpty();
        side.remote = List.copyOf(peers);
        if (first) {
            side.checkGidUse(peers);
            output.connection(side.mine, peers);
            side.postReceives(0);
        }
    }

    @Override
    public void run(int index) throws IOException {
        long size = side.sizes.get(index);
        if (s.run().runInfinitely()) {
            lastReport = RunControl.soak(side, size, output, oob);
            return;
        }
        RunControl.performWarmUp(side, size);
        ProgressLine progress = duration ? ProgressLine.forRun(s, console.err(), ProgressLine.stderrIsTerminal()) : null;
        StopRule rule = Measurement.rule(side, progress);
        Measurement.Row row;
        try {
            row = Measurement.run(side, size, rule);
        } finally {
            rule.finish();   // the progress line goes before the row
        }
        if (rule.cpu() != null) {
            output.cpuUtil(rule.cpu().percent());
        }
        if (row.latency() != null) {
            output.latencyRow(row.latency(), rule.postTimes());
        } else if (row.windowLatency() != null) {
            output.latencyRow(row.windowLatency());
        } else if (duration ? s.bidirectional() && s.kind() != TestKind.SEND_BW && !side.writeImmediate
                : s.bidirectional()) {
            lastReport = row.bandwidth();   // -b: printed with the peer's sum after the report exchange
        } else {
            if (s.kind() != TestKind.SEND_BW) {
                lastReport = row.bandwidth();
            }
            // send_bw -D -b exchanges no report: each side prints its own row
            output.bandwidthRow(row.bandwidth());
        }
        if (!duration && index + 1 < side.sizes.size()) {
            side.postReceives(index + 1);
        }
        if (s.operations().dataValidation() && side.verb == Verb.READ) {
            validate(size);   // the read-bw client (both with -b): the bytes it read have landed
        }
    }

    /** --data_validation: checks the bytes that landed here; prints PASSED in the table, or fails. */
    private void validate(long size) {
        long bytes = DataValidation.check(side, size, s.operations().dataValidationDebug() ? console.err() : null);
        if (output.isText()) {
            console.out().print(" Data validation: PASSED (" + bytes + " bytes of " + side.qps.size() + " QP"
                    + (side.qps.size() > 1 ? "s" : "") + ")\n");
            console.out().flush();
        }
    }

    @Override
    public BwReportData bandwidthReport() {
        if (lastReport != null) {
            return lastReport;
        }
        return new BwReportData(side.sizes.getLast(), s.iters() * s.qps(), 0, 0, 0);
    }

    @Override
    public void remoteBandwidthReport(BwReportData remoteReport) {
        if (s.bidirectional()) {
            output.bandwidthRow(lastReport.plus(remoteReport));   // print_full_bw_report: both directions' sum
            output.reportBoth(lastReport, remoteReport);
        } else if (!s.testClient() && s.kind() != TestKind.SEND_BW) {
            if (s.run().runInfinitely()) {
                output.line(RunControl.CLIENT_CLOSED);   // perftest's passive side of a soak prints no numbers
            } else {
                output.bandwidthRow(remoteReport);   // the passive server prints the client's numbers
            }
        }
        if (s.operations().dataValidation() && side.verb == Verb.WRITE && (s.bidirectional() || !s.client())) {
            validate(side.sizes.getFirst());   // the write-bw server (both with -b): the peer's run has ended
        }
    }

    private void finish() throws IOException {
        Map<String, Object> parameters = s.toParameters();
        parameters.put("warm_up_rounds", warmUp.rounds);
        parameters.put("warm_up_ms", warmUp.nanos / 1_000_000);
        parameters.put("warm_up_settled", warmUp.settled);
        side.post.describe(parameters);
        if (warmUp.cpus != null) {
            parameters.put("warm_up_cpus", warmUp.cpus);
        }
        output.finish(info, parameters, peerVersion, side.mine, side.remote);
    }
}
