// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Context;
import dev.jrdma.Mtu;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.tools.perftest.CpuAffinity;
import dev.jrdma.tools.perftest.NumaNodes;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestListener;
import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.PerftestSchedule;
import dev.jrdma.tools.perftest.PerftestSession;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.TestKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The device part of the perftest-compatible tests, on the public dev.jrdma API, and its session
 * set-up: opens the device, decides the port, GID and sizes ({@link SessionSettings}), sets up
 * this {@link Side}, warms the JIT up ({@link WarmUp}) and opens the out-of-band exchange over
 * TCP or, with -R, rdma_cm ({@link RdmaCmSetup}); {@link PerftestSession} then drives the
 * schedule, whose steps {@link TestRun} performs; {@link RunOutput} prints.
 */
public final class PerftestRunner {
    private final PerftestSettings s;
    private final Console console;
    private final Side side;
    private final RunOutput output;
    private final WarmUp warmUp;
    private final boolean duration;
    private final TestRun test;
    private String peerVersion = "";
    private TestInfo info;
    /** --pin-cpu: the measuring thread's binding, undone when the run ends. */
    private CpuAffinity.Pinned pinned;
    private CpuAffinity.Pinned numaBound;

    private PerftestRunner(PerftestSettings s, Console console) {
        this.s = s;
        this.console = console;
        this.side = new Side(s, Completions.spinMask(s.timeout()));
        this.output = new RunOutput(s, console.out());
        this.warmUp = new WarmUp(side, console);
        this.duration = s.durationSeconds() > 0;
        this.test = new TestRun(s, console, side, output, warmUp);
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
            int code = r.session(context);
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

    private int session(Context context) throws IOException {
        side.session = SessionSettings.of(s, context);
        Mtu myMtu = side.session.localMtu(s);
        output.open(context.name(), s.ibPort());
        RunControl.warnCpuUtil(s, console);
        if (s.addressing().connectionless()) {
            return connectionlessSession(myMtu);
        }
        if (s.rdmaCm()) {
            try (RdmaCmSetup cm = new RdmaCmSetup(s)) {
                test.rdmaCm = cm;
                return rdmaCmSession(cm, myMtu);
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
                        side.session.announcedGidIndex()));
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
            side.createResources(side.session.context(), null);
            // -g: the receiving side's QPs join the group (and announce it) before the key exchange.
            java.io.Closeable group = Addressing.receivesMulticast(s) ? Addressing.joinMulticast(side) : null;
            try {
                runSchedule(oob, List.copyOf(side.records.mine));
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
    private int rdmaCmSession(RdmaCmSetup rdmaCm, Mtu myMtu) throws IOException {
        warmUp.run(myMtu);
        pinMeasuringThread();
        RdmaCmControl control = rdmaCm.control(output::waiting);
        try (PerftestChannel oob = PerftestChannel.overRdmaCm(control, side.session.announcedGidIndex())) {
            preamble(oob, myMtu);
            List<PeerInfo> placeholders = new ArrayList<>();
            for (int i = 0; i < s.qps(); i++) {
                placeholders.add(PeerInfo.zero(side.session.gid() != null));
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
        side.session = side.session.agreed(myMtu, s.sizesForMtu(myMtu.bytes()));
        SessionSettings session = side.session;
        side.createResources(session.context(), null);
        try (java.io.Closeable group = Addressing.joinMulticast(side)) {
            side.readyWithoutPeer();
            TestKind kind = s.kind();
            info = new TestInfo(kind.verb(), null, true, false, false, session.context().name(), s.qps(),
                    RunHeader.transport(session.context().device().transportType()), s.connection().name(),
                    s.posting().useSrq(), RunHeader.relaxOrder(Side.BUFFER_ACCESS), side.post.extendedPost ? "ON" : "OFF",
                    s.txDepth(), s.rxDepth(), s.posting().postList(), s.cqMod(), session.mtuBytes(),
                    session.port().isEthernet() ? "Ethernet" : "IB", session.announcedGidIndex(), session.inlineSize(),
                    session.outReads(), false, s.events(), s.durationSeconds(), Math.max(0, s.completionVector()),
                    false);
            output.header(info);
            output.connection(side.records.mine, List.of());
            side.postReceives(0);
            test.run(0);
        }
        finish();
        return ExitCode.OK;
    }

    /** The version, system data and MTU exchange; the sizes follow from the agreed MTU. */
    private void preamble(PerftestChannel oob, Mtu myMtu) throws IOException {
        PerftestSession.Preamble pre = PerftestSession.preamble(oob, Side.PAGE_SIZE, Side.CACHE_LINE, myMtu.value(),
                !s.addressing().dontExchangeVersions());
        peerVersion = pre.peerVersion();
        Mtu agreed = Mtu.of(pre.mtuEnum());   // exchangeMtu keeps it within 1..5
        side.session = side.session.agreed(agreed, s.sizesForMtu(agreed.bytes()));
    }

    /** After the preamble: the header, then the test's schedule with {@code records} as this side's. */
    private void runSchedule(PerftestChannel oob, List<PeerInfo> records) throws IOException {
        test.oob = oob;
        TestKind kind = s.kind();
        SessionSettings session = side.session;
        info = new TestInfo(kind.verb(), s.atomicType() == null ? null : s.atomicType().name(), kind.bandwidth(),
                s.bidirectional(), s.testClient(), session.context().name(), s.qps(),
                RunHeader.transport(session.context().device().transportType()), s.connection().name(),
                s.posting().useSrq(), RunHeader.relaxOrder(Side.BUFFER_ACCESS), side.post.extendedPost ? "ON" : "OFF",
                s.txDepth(), s.rxDepth(),
                s.posting().postList(), s.cqMod(), session.mtuBytes(), session.port().isEthernet() ? "Ethernet" : "IB",
                session.announcedGidIndex(), session.inlineSize(), session.outReads(), s.rdmaCm(), s.events(),
                s.durationSeconds(), Math.max(0, s.completionVector()), s.addressing().commRdmaCm() && !s.rdmaCm());
        output.header(info);
        // The wait for the peer's run: a -D run's length is known, an iteration run's is not.
        // A --run_infinitely run's is not: it ends when the peer is stopped.
        Duration peerRun = duration && !s.run().runInfinitely()
                ? Duration.ofSeconds(s.durationSeconds()).plus(s.timeout()) : null;
        side.records.remote = PerftestSession.run(oob, kind, records, session.sizes().size(),
                PerftestSchedule.Options.of(s), peerRun, test);
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
        output.finish(info, parameters, peerVersion, side.records.mine, side.records.remote);
    }
}
