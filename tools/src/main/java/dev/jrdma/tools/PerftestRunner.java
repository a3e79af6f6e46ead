package dev.jrdma.tools;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CmEventChannel;
import dev.jrdma.CmId;
import dev.jrdma.CompletionChannel;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.DeviceAttributes;
import dev.jrdma.Endpoint;
import dev.jrdma.Gid;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.MemoryRegion;
import dev.jrdma.Mtu;
import dev.jrdma.PortAttributes;
import dev.jrdma.PortState;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import dev.jrdma.RdmaException;
import dev.jrdma.RdmaTimeoutException;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletions;
import dev.jrdma.tools.perftest.BandwidthMath;
import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.CsvReport;
import dev.jrdma.tools.perftest.DurationLatency;
import dev.jrdma.tools.perftest.ProgressLine;
import dev.jrdma.tools.perftest.JsonReport;
import dev.jrdma.tools.perftest.LatencyReport;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.PerftestFormat;
import dev.jrdma.tools.perftest.PerftestProtocolException;
import dev.jrdma.tools.perftest.PerftestSchedule;
import dev.jrdma.tools.perftest.PerftestSession;
import dev.jrdma.tools.perftest.CpuAffinity;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.ReportFiles;
import dev.jrdma.tools.perftest.RunReport;
import dev.jrdma.tools.perftest.TestInfo;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The device part of the perftest-compatible tests, on the public dev.jrdma API: opens the
 * device, creates the CQs, QPs and the buffer with perftest's sizes and layout, connects the QPs
 * with the peer's key records and runs perftest's measurement loops
 * ({@code run_iter_lat_send}, {@code run_iter_lat_write}, {@code run_iter_lat}, {@code run_iter_bw},
 * {@code run_iter_bw_server}), while {@link PerftestSession} drives the out-of-band exchange.
 *
 * <p>Buffer layout as perftest's ({@code create_mr}, {@code set_up_connection}): one region of
 * 2 x QPs x B bytes, B = max(largest size, page size); QP i sends from [i B, (i+1) B) and
 * announces [(QPs + i) B, ...) as its vaddr, which the peer writes into or reads from.
 *
 * <p>-R (perftest's {@code work_rdma_cm} and {@code use_rdma_cm}): the exchange runs over an
 * rdma_cm control QP ({@link RdmaCmControl}) and the test QP is created and connected by rdma_cm
 * on the same -p port ({@link #connectRdmaCm}), on the device context rdma_cm resolved; the
 * buffer, CQs and PD are created there too and closed with the id.
 */
final class PerftestRunner implements PerftestSession.Device {
    private static final int PAGE_SIZE = 4096;
    private static final int CACHE_LINE = 64;
    /** The GRH (or RoCE v2's IP header area) in front of every UD receive: perftest's UD_ADDITION. */
    private static final int UD_GRH = 40;
    /**
     * Why a measurement loop stalls: perftest's protocol does not exchange the run's
     * parameters, so a mismatch shows only as missing messages.
     */
    private static final String STALLED = "the peer stopped or vanished, or the two sides differ in a parameter "
            + "that must match (-c, -s/-a, -n/-D, -q, -b, -r)";
    /** A -D write-lat side answers after its end until the peer is this long quiet (lingerForWriteLatency). */
    private static final long LINGER_QUIET_NANOS = 300_000_000L;
    /**
     * ... and for no longer than this: two lingering jrdma sides would answer each other forever,
     * and the two sides' windows start within a sync's latency of each other, far less than this.
     */
    private static final long LINGER_MAX_NANOS = 2_000_000_000L;
    /** perftest's DEF_QKEY. */
    private static final int QKEY = 0x11111111;
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /** perftest's ATOMIC_ADD_VALUE and ATOMIC_SWAP_VALUE. */
    private static final long ATOMIC_ADD = 1;
    private static final long ATOMIC_SWAP = 0;

    private final PerftestSettings s;
    private final CommandSpec spec;
    private final PrintWriter out;
    private final boolean text;
    private final Duration timeout;
    private final long timeoutNanos;
    private final TestKind kind;
    private final Verb verb;

    private Context context;
    private PortAttributes port;
    private int gidIndex;
    private Gid gid;
    private List<Long> sizes;
    private int mtuBytes;
    private Mtu agreedMtu;
    private long slot;
    private int outReads;
    private int inlineSize;
    private MemoryRegion mr;
    /** -e: the channel both CQs report to; null when polling. */
    private CompletionChannel channel;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private final List<QueuePair> qps = new ArrayList<>();
    /** -c UD: per QP the address handle of the peer's QP (built in connect). */
    private final List<AddressHandle> addressHandles = new ArrayList<>();
    private ProtectionDomain pd;
    private final boolean ud;
    private final List<PeerInfo> mine = new ArrayList<>();
    private List<PeerInfo> remote = List.of();
    private final List<LatencyReport> latencyRows = new ArrayList<>();
    private final List<DurationLatency> durationRows = new ArrayList<>();
    /** -D: the run is timed, not counted (see {@link Window}). */
    private final boolean duration;
    private ProgressLine progress;
    private final List<BwReportData> bwRows = new ArrayList<>();
    private BwReportData lastReport;
    private String peerVersion = "";
    private TestInfo info;
    private final WorkCompletion wc = new WorkCompletion();
    private final WorkCompletions batch = new WorkCompletions(16);
    /** -R: the channel of the control and test ids; closing it closes them and their resources. */
    private CmEventChannel cmEvents;
    /** -R server: the listener for the test QPs' connect requests. */
    private CmId cmListener;
    /**
     * Empty polls between two looks at the clock, minus one: {@link #SPINS_PER_CLOCK_READ} - 1, and
     * 3 for a warm-up twin, so the warm-up also runs the clock check that a long wait of the
     * measurement reaches (a path the JIT has not seen is compiled as a deoptimizing trap).
     */
    private final int spinMask;
    /** --warm-up: the rounds it ran and how long it took (0 when it did not run). */
    private int warmUpRounds;
    private long warmUpNanos;
    /** The CPUs the warm-up's threads could use (its report; null when it did not run). */
    private volatile String warmUpCpus;
    /** --pin-cpu: the measuring thread's binding, undone when the run ends. */
    private CpuAffinity.Pinned pinned;

    private PerftestRunner(PerftestSettings s, CommandSpec spec) {
        this(s, spec, false);
    }

    /** {@code quiet}: prints nothing (the warm-up's loopback pair). */
    private PerftestRunner(PerftestSettings s, CommandSpec spec, boolean quiet) {
        this.s = s;
        this.spec = spec;
        this.out = spec.commandLine().getOut();
        this.text = !quiet && !s.json() && !s.csv() && s.output() == null;
        this.spinMask = quiet ? 3 : SPINS_PER_CLOCK_READ - 1;
        this.timeout = s.timeout();
        this.timeoutNanos = timeout.toNanos();
        this.kind = s.kind();
        this.verb = kind.verb();
        this.ud = s.connection() == TestKind.Connection.UD;
        this.duration = s.durationSeconds() > 0;
    }

    /** Runs the test; the exit code. Failures are exceptions (exit code 1 with their message). */
    static int run(PerftestSettings s, CommandSpec spec) throws IOException {
        String unsupported = unsupported(s);
        if (unsupported != null) {
            spec.commandLine().getErr().println(spec.qualifiedName() + ": " + unsupported
                    + " is not implemented yet in jrdma's device part");
            return Jrdma.EXIT_FAILURE;
        }
        List<RdmaDevice> devices = Rdma.devices();
        RdmaDevice device;
        if (s.device() != null) {
            device = DeviceCommands.findDevice(spec, devices, s.device());
            if (device == null) {
                return Jrdma.EXIT_FAILURE;
            }
        } else if (devices.isEmpty()) {
            spec.commandLine().getErr().println(spec.qualifiedName() + ": no RDMA devices found");
            return Jrdma.EXIT_FAILURE;
        } else {
            device = devices.getFirst();
        }
        PerftestRunner r = new PerftestRunner(s, spec);
        if (s.pinCpu() >= 0) {
            // Checked now, bound after the warm-up (pinMeasuringThread): its twin threads would
            // inherit the binding and share the one CPU with each other.
            try {
                CpuAffinity.checkAvailable(s.pinCpu());
            } catch (IllegalArgumentException | IllegalStateException e) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": --pin-cpu: " + e.getMessage());
                return Jrdma.EXIT_FAILURE;
            }
        }
        try (Context context = device.open()) {
            r.context = context;
            return r.session();
        } finally {
            if (r.pinned != null) {
                r.pinned.close();   // an in-process caller (tests) gets its thread back as it was
            }
        }
    }

    /**
     * --pin-cpu: binds the calling (measuring) thread, once the warm-up's threads have ended and
     * before the peer connects; a thread started by a bound thread would inherit the binding.
     */
    private void pinMeasuringThread() throws IOException {
        if (s.pinCpu() < 0 || pinned != null) {
            return;
        }
        try {
            pinned = CpuAffinity.pinCurrentThread(s.pinCpu());
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IOException("--pin-cpu: " + e.getMessage(), e);
        }
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

    private int session() throws IOException {
        DeviceAttributes attrs = context.queryDevice();
        if (s.ibPort() > attrs.physicalPortCount()) {
            throw new IOException(context.name() + " has " + attrs.physicalPortCount() + " port(s), no port " + s.ibPort());
        }
        port = context.queryPort(s.ibPort());
        if (port.state() != PortState.ACTIVE) {
            throw new IOException(context.name() + " port " + s.ibPort() + " is " + port.state() + ", not ACTIVE");
        }
        gidIndex = chooseGid();
        Mtu myMtu = s.mtu() == 0 ? port.activeMtu() : mtuOf(s.mtu());
        if (verb == Verb.READ || verb == Verb.ATOMIC) {
            int max = Math.min(attrs.maxQpRdAtom(), attrs.maxQpInitRdAtom());
            outReads = s.outReads() > 0 ? Math.min(s.outReads(), max) : max;
        } else {
            outReads = 1;
        }
        inlineSize = s.inlineSize() >= 0 ? s.inlineSize()
                : context.name().startsWith("mlx") ? kind.defaultInline(s.connection()) : 0;

        if (s.rdmaCm()) {
            cmEvents = CmEventChannel.create();
            try {
                return rdmaCmSession(myMtu);
            } finally {
                cmEvents.close();   // the ids, their QPs, CQs, buffers and PDs
            }
        }
        PerftestChannel ch;
        if (s.client()) {
            warmUp(myMtu);
            pinMeasuringThread();
            ch = PerftestChannel.connect(s.host(), s.port(), timeout);
        } else {
            // Before listening: a client that finds the port open starts its own warm-up or run, and
            // two warm-ups at once would share the CPUs (four spinning threads on a 2-CPU VM).
            warmUp(myMtu);
            pinMeasuringThread();
            if (text) {
                out.print(PerftestFormat.WAITING);
                out.flush();
            }
            try (PerftestChannel.Listener l = PerftestChannel.listen(new InetSocketAddress(s.port()))) {
                ch = l.accept(timeout);
            }
        }
        try (PerftestChannel oob = ch) {
            PerftestSession.Preamble pre = PerftestSession.preamble(oob, PAGE_SIZE, CACHE_LINE, myMtu.value());
            peerVersion = pre.peerVersion();
            agreedMtu = Mtu.of(pre.mtuEnum());   // exchangeMtu keeps it within 1..5
            mtuBytes = agreedMtu.bytes();
            sizes = s.sizesForMtu(mtuBytes);
            createResources(context, null);
            runSchedule(oob, pre, List.copyOf(mine));
        }
        finish();
        return 0;
    }

    /** After the preamble: the header, then the test's schedule with {@code records} as this side's. */
    private void runSchedule(PerftestChannel oob, PerftestSession.Preamble pre, List<PeerInfo> records)
            throws IOException {
        info = new TestInfo(verb, s.atomicType() == null ? null : s.atomicType().name(), kind.bandwidth(),
                s.bidirectional(), s.client(), context.name(), s.qps(), "IB", s.connection().name(), false, "ON", "OFF",
                s.txDepth(), s.rxDepth(), 1, s.cqMod(), mtuBytes, port.isEthernet() ? "Ethernet" : "IB",
                gid == null ? -1 : gidIndex, inlineSize, outReads, s.rdmaCm(), s.events(), s.durationSeconds());
        if (text) {
            out.print(PerftestFormat.header(info));
            out.flush();
        }
        // The wait for the peer's run: a -D run's length is known, an iteration run's is not.
        Duration peerRun = s.durationSeconds() > 0 ? Duration.ofSeconds(s.durationSeconds()).plus(timeout) : null;
        remote = PerftestSession.run(oob, kind, records, sizes.size(), PerftestSchedule.Options.of(s), peerRun, this);
    }

    /**
     * -R: the control connection on the -p port (the client retries while the server is not
     * listening yet), the preamble over it, then the schedule; the test QPs come with
     * {@link #connectRdmaCm}, so the records given to the schedule are placeholders until then.
     */
    private int rdmaCmSession(Mtu myMtu) throws IOException {
        RdmaCmControl control;
        // The server before listening, as over TCP (and a connect request left unanswered for the
        // warm-up could time out in the CM); this client retries until the server listens.
        warmUp(myMtu);
        pinMeasuringThread();
        if (s.client()) {
            control = RdmaCmControl.connect(cmEvents, serverAddress(), timeout);
        } else {
            InetSocketAddress any = new InetSocketAddress(InetAddress.getByAddress(new byte[4]), s.port());
            CmId listener = cmEvents.createId();
            listener.bind(any);
            listener.listen(1);
            // Only now: a perftest client does not retry a rejected control connect.
            if (text) {
                out.print(PerftestFormat.WAITING);
                out.flush();
            }
            control = RdmaCmControl.accept(listener, timeout);
            // perftest destroys the control listener once connected and listens again on the same
            // port for the test QPs right after the next sync; its client retries a rejected connect
            // only for about a second, so this side listens at once and queues the request.
            listener.close();
            cmListener = cmEvents.createId();
            cmListener.bind(any);
            cmListener.listen(s.qps());
        }
        try (PerftestChannel oob = PerftestChannel.overRdmaCm(control, gid == null ? -1 : gidIndex)) {
            PerftestSession.Preamble pre = PerftestSession.preamble(oob, PAGE_SIZE, CACHE_LINE, myMtu.value());
            peerVersion = pre.peerVersion();
            agreedMtu = Mtu.of(pre.mtuEnum());
            mtuBytes = agreedMtu.bytes();
            sizes = s.sizesForMtu(mtuBytes);
            List<PeerInfo> placeholders = new ArrayList<>();
            for (int i = 0; i < s.qps(); i++) {
                placeholders.add(PeerInfo.zero(gid != null));
            }
            runSchedule(oob, pre, placeholders);
        }
        finish();
        return 0;
    }

    private InetSocketAddress serverAddress() throws IOException {
        InetAddress address;
        try {
            address = InetAddress.getByName(s.host());
        } catch (UnknownHostException e) {
            throw new PerftestProtocolException("connect: cannot resolve host '" + s.host() + "'", e);
        }
        if (!(address instanceof Inet4Address)) {
            throw new PerftestProtocolException("-R (rdma_cm): '" + s.host() + "' is not an IPv4 address;"
                    + " give the IPv4 address of the server's RDMA interface");
        }
        return new InetSocketAddress(address, s.port());
    }

    /**
     * -R: perftest's rdma_cm_client_connection / rdma_cm_server_connection for the test QP: the
     * client resolves the server's address and route on the -p port, creates the buffer, CQs and
     * QP on the device rdma_cm chose and connects, retrying a rejected request every 100 ms (the
     * server listens again only after the sync before this step); the server takes the request
     * and accepts. rdma_cm moves the QP to RTS: no key record is needed for that, the records
     * exchanged afterwards carry only the rkey and address.
     */
    @Override
    public List<PeerInfo> connectRdmaCm() throws IOException {
        if (s.client()) {
            InetSocketAddress server = serverAddress();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                CmId id = cmEvents.createId();
                try {
                    id.resolveAddress(server, timeout);
                    id.resolveRoute(timeout);
                    requireDevice(id, server.getAddress().getHostAddress());
                    createResources(id.context(), id);
                    id.connect(new byte[0], timeout);
                    break;
                } catch (RdmaException | IllegalStateException e) {
                    id.close();   // with the buffer, CQs and QP made for it
                    if (System.nanoTime() - deadline > 0) {
                        throw new PerftestProtocolException("rdma_cm connection of the test QP to " + server
                                + " failed within " + timeout.toSeconds() + " s: " + e.getMessage(), e);
                    }
                    LockSupport.parkNanos(100_000_000L);
                }
            }
        } else {
            CmId id;
            try {
                id = cmListener.awaitConnectRequest(timeout).id();
            } catch (IllegalStateException e) {
                throw new PerftestProtocolException("rdma_cm: the client did not connect its test QP within "
                        + timeout.toSeconds() + " s", e);
            }
            requireDevice(id, "the client's request");
            createResources(id.context(), id);
            id.accept(new byte[0], timeout);
            cmListener.close();   // as perftest, once its QPs are connected
            cmListener = null;
        }
        settleJit();
        return List.copyOf(mine);
    }

    /**
     * The device rdma_cm chose by IP address must be the one this side queried (-d, or the first
     * device) for the port, GID and header.
     */
    private void requireDevice(CmId id, String what) throws IOException {
        String chosen = id.context().name();
        if (!chosen.equals(context.name())) {
            id.close();
            throw new PerftestProtocolException("-R (rdma_cm): " + what + " goes through device " + chosen + ", not "
                    + context.name() + (s.device() == null ? "; give -d " + chosen : " (-d)"));
        }
    }

    /**
     * -R: the peer's records after a key exchange. The first one also does what {@link #connect}
     * does after the QP transitions over TCP: print both sides' addresses and the table header,
     * and post the receives of a SEND test before the sync that precedes the first run.
     */
    @Override
    public void rdmaCmKeys(List<PeerInfo> peers) throws IOException {
        boolean first = remote.isEmpty();
        remote = List.copyOf(peers);
        if (first) {
            checkGidUse(peers);
            printConnection(peers);
            if (verb == Verb.SEND) {
                postReceives(0);
            }
        }
    }

    private int chooseGid() {
        if (s.gidIndex() >= 0) {
            Optional<GidEntry> e = context.gid(s.ibPort(), s.gidIndex());
            if (e.isEmpty()) {
                throw new IllegalArgumentException("GID index " + s.gidIndex() + " of " + context.name() + " port "
                        + s.ibPort() + " is not in use (see 'jrdma devinfo -v')");
            }
            gid = e.get().gid();
            return s.gidIndex();
        }
        List<GidEntry> table = context.gidTable(s.ibPort());
        if (!port.isEthernet()) {
            gid = null;   // InfiniBand: LID routing, no GID exchanged (perftest's gid_index -1)
            return table.isEmpty() ? 0 : table.getFirst().index();
        }
        GidEntry best = table.stream().filter(g -> g.type() == GidType.ROCE_V2 && g.ipv4().isPresent()).findFirst()
                .or(() -> table.stream().filter(g -> g.type() == GidType.ROCE_V2).findFirst())
                .or(() -> table.stream().findFirst())
                .orElseThrow(() -> new IllegalStateException(context.name() + " port " + s.ibPort()
                        + " has no GID (RoCE needs one)"));
        gid = best.gid();
        return best.index();
    }

    private static Mtu mtuOf(int bytes) {
        for (Mtu m : Mtu.values()) {
            if (m.bytes() == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("no MTU of " + bytes + " bytes");
    }

    /**
     * The buffer, CQs and QPs on {@code ctx}; with {@code cmId} (-R) its QP is created by rdma_cm
     * (one QP: -R with -q above 1 is refused before) and everything belongs to that id.
     */
    private void createResources(Context ctx, CmId cmId) {
        qps.clear();
        mine.clear();
        long maxSize = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        // A UD receive buffer also holds the 40-byte GRH in front of the message.
        slot = Math.max(maxSize + (ud ? UD_GRH : 0), PAGE_SIZE);
        slot = (slot + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
        int n = s.qps();
        pd = ctx.allocateProtectionDomain();
        mr = pd.allocate(2L * n * slot,
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));
        int tx = s.txDepth();
        int rx = verb == Verb.SEND ? s.rxDepth() : 1;
        if (s.events()) {
            channel = ctx.createCompletionChannel();
            sendCq = ctx.createCompletionQueue(Math.max(1, tx * n), channel);
            recvCq = verb == Verb.SEND ? ctx.createCompletionQueue(Math.max(1, rx * n), channel) : sendCq;
        } else {
            sendCq = ctx.createCompletionQueue(Math.max(1, tx * n));
            recvCq = verb == Verb.SEND ? ctx.createCompletionQueue(Math.max(1, rx * n)) : sendCq;
        }
        QueuePairType type = switch (s.connection()) {
            case RC -> QueuePairType.RC;
            case UC -> QueuePairType.UC;
            case UD -> QueuePairType.UD;
        };
        for (int i = 0; i < n; i++) {
            QueuePair.Builder builder = pd.queuePair(type).sendCompletionQueue(sendCq).receiveCompletionQueue(recvCq)
                    .maxWorkRequests(tx, rx).maxSges(1, 1).maxInlineData(inlineSize);
            QueuePair qp = cmId == null ? builder.build() : cmId.createQueuePair(builder);
            qps.add(qp);
            Endpoint local = qp.localEndpoint(s.ibPort(), gidIndex);
            long vaddr = mr.address() + (long) (n + i) * slot;
            mine.add(new PeerInfo(port.lid(), outReads, qp.qpNumber(), local.psn(), mr.rkey(), vaddr,
                    gid == null ? null : gid.bytes(), 0));
        }
    }

    /** Warm-up rounds at most; each round is --warm-up iterations. */
    private static final int WARM_UP_ROUNDS = 10;
    /**
     * Iterations of one warm-up run: short runs, many of them, so the JIT sees the test's loop
     * method called often and compiles it whole (an OSR compilation of a single long run is
     * replaced again when the measurement calls the method anew).
     */
    private static final int WARM_UP_RUN_ITERS = 20;
    /**
     * The same for the bandwidth tests. Their loop posts a run's messages in a few passes, so a
     * run of 20 adds only a handful of counts toward C2's threshold: with runs of 20, write-bw's
     * loop was still interpreted when the measurement began (-XX:+PrintCompilation, TCG). Runs
     * of 4 (tx depth 2, a completion every 2nd) call it five times as often per round.
     */
    private static final int WARM_UP_BW_RUN_ITERS = 4;
    /** Rounds at least: the first one also runs whatever the JVM still compiles from its start. */
    private static final int WARM_UP_MIN_ROUNDS = 3;
    /** How long past the warm-up's time limit it may still wait for the JIT to finish. */
    private static final long WARM_UP_JIT_WAIT_NANOS = 5_000_000_000L;
    /** The warm-up's time limit, and at most half the --timeout (the peer may be waiting). */
    private static final long WARM_UP_MAX_NANOS = 20_000_000_000L;
    /**
     * After a warm-up, how long connect() may wait for the JIT to go idle again (at most a
     * quarter of the --timeout): the peer waits for the sync that follows.
     */
    private static final long SETTLE_MAX_NANOS = 2_000_000_000L;

    /**
     * jrdma's own warm-up (--warm-up): a JVM runs a loop interpreted, then C1-compiled, and only
     * after thousands of iterations C2-compiled; a C tool starts compiled. So before the peer
     * connects (the server: before it listens), this runs the same test methods on a loopback
     * pair of runners on this device (a client and a server twin, each with its own buffer, CQs
     * and QPs, connected to each other) in rounds of --warm-up iterations, until a round in which
     * the JIT completed no compilation or, from the third round on, one no faster than the best
     * before it, either with nothing left in the JIT's queues at the round's end (at most 10
     * rounds, 20 s or half the --timeout), and then waits for the JIT to become idle. Nothing of it reaches the peer, so the protocol stays perftest's. Under qemu
     * TCG scripts/jrdma also changes two JIT settings (see there). A failure
     * only skips the rest of the warm-up (with a line on stderr): the measurement then shows
     * what is wrong.
     */
    private void warmUp(Mtu myMtu) {
        if (s.warmUpIters() == 0 || duration || !runsTest(s.client())) {
            return;
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long end = System.nanoTime() + Math.min(WARM_UP_MAX_NANOS, timeout.toNanos() / 2);
        // The same side of the inline limit as the measurement (another branch in the request), small
        // otherwise: the message size changes the device's work, not the Java code.
        long first = sizes == null ? s.sizes().getFirst() : sizes.getFirst();
        long size = Math.min(first, Math.max(64, inlineSize + 1L));
        long best = Long.MAX_VALUE;
        long begin = System.nanoTime();
        // The first Compiler.queue call builds the DiagnosticCommand MBean (class loading, JFR's
        // .jfc files parsed: ~0.5 s of fresh code under TCG). Made at the end, its compilations
        // ran during the measurement; made here, the rounds below absorb them.
        awaitJitIdle(begin);
        try {
            for (int round = 1; round <= WARM_UP_ROUNDS; round++) {
                long compiled = timed ? jit.getTotalCompilationTime() : 0;
                long start = System.nanoTime();
                try {
                    warmUpRound(myMtu, size, end);
                } catch (IOException | RuntimeException e) {
                    spec.commandLine().getErr().println(spec.qualifiedName() + ": warm-up on a loopback QP pair of "
                            + context.name() + " failed, measuring without the rest of it: " + e.getMessage());
                    return;
                }
                warmUpRounds = round;
                long took = System.nanoTime() - start;
                // Done when the JIT finished nothing during the round, or when the round was no faster
                // than the best before it (the code the measurement will run is what ran) - and in
                // either case nothing is queued or being compiled. A bandwidth round takes as long
                // interpreted as compiled (the device sets its pace), and C2 takes ~1 s per method
                // under TCG, so without that check write-bw stopped after three rounds with its
                // completion loop still interpreted, and compiled it during the measurement.
                boolean quiet = timed && jit.getTotalCompilationTime() == compiled;
                boolean steady = round >= WARM_UP_MIN_ROUNDS && took * 100 > best * 97;
                if ((quiet || steady) && jitIdleNow() || System.nanoTime() - end > 0) {
                    break;
                }
                best = Math.min(best, took);
            }
            awaitJitIdle(end + WARM_UP_JIT_WAIT_NANOS);
        } finally {
            warmUpNanos = System.nanoTime() - begin;
        }
    }

    /**
     * After the warm-up runs, sleeps until the JIT's queues are empty and nothing is being
     * compiled (HotSpot's Compiler.queue diagnostic command), at most until {@code deadline}: a
     * compiler thread still at work during the measurement takes a CPU from the test, or from the
     * device's own work (Soft-RoCE runs in the kernel). On a JVM without that command, returns.
     */
    private static void awaitJitIdle(long deadline) {
        try {
            boolean first = true;
            javax.management.MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            javax.management.ObjectName dcmd = new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand");
            String[] signature = {String[].class.getName()};
            while (first || System.nanoTime() - deadline < 0) {
                first = false;
                Object queue = server.invoke(dcmd, "compilerQueue", new Object[] {null}, signature);
                if (jitIdle(String.valueOf(queue))) {
                    return;
                }
                Thread.sleep(50);
            }
        } catch (javax.management.JMException | RuntimeException e) {
            // not HotSpot, or no jdk.management: the rounds above are all there is
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One look at HotSpot's compile queues; true on a JVM without the Compiler.queue command. */
    private static boolean jitIdleNow() {
        try {
            Object queue = ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue",
                    new Object[] {null}, new String[] {String[].class.getName()});
            return jitIdle(String.valueOf(queue));
        } catch (javax.management.JMException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Whether a Compiler.queue report shows an idle JIT: no task under "Current compiles:" and
     * "Empty" under every "... compile queue:".
     */
    static boolean jitIdle(String report) {
        for (String line : report.lines().map(String::strip).toList()) {
            if (!line.isEmpty() && !line.equals("Current compiles:") && !line.endsWith("compile queue:")
                    && !line.equals("Empty")) {
                return false;
            }
        }
        return report.contains("Current compiles:");
    }

    /** Whether the side runs the measurement (a passive write/read/atomic server does not). */
    private boolean runsTest(boolean client) {
        return PerftestSchedule.of(kind, client, 1, PerftestSchedule.Options.of(s)).contains(PerftestSchedule.Step.RUN);
    }

    /**
     * One round: a fresh loopback pair, --warm-up iterations in runs of {@link #WARM_UP_RUN_ITERS}
     * ({@link #WARM_UP_BW_RUN_ITERS} for the bandwidth tests).
     */
    private void warmUpRound(Mtu myMtu, long size, long end) throws IOException {
        PerftestRunner client = twin(true, myMtu, size);
        PerftestRunner server = twin(false, myMtu, size);
        boolean stopped = true;
        try {
            client.createResources(context, null);
            server.createResources(context, null);
            client.connect(List.copyOf(server.mine));
            server.connect(List.copyOf(client.mine));
            // The first failure is the cause; the other twin's is usually its consequence (ERR, broken barrier).
            AtomicReference<IOException> failure = new AtomicReference<>();
            Thread[] threads = new Thread[2];
            PerftestRunner[] twins = {client, server};
            boolean[] runs = {runsTest(true), runsTest(false)};
            // Both running twins start each run together: the receives and buffers of the one are
            // re-armed before the other sends or writes again.
            // The barrier's action decides for both whether time is up, so they stop after the same run.
            boolean[] stop = {false};
            CyclicBarrier start = new CyclicBarrier(runs[1] ? 2 : 1, () -> stop[0] = System.nanoTime() - end > 0);
            int count = (int) Math.max(1, s.warmUpIters() / warmUpRunIters());
            for (int i = 0; i < 2; i++) {
                int k = i;
                if (!runs[k]) {
                    continue;
                }
                threads[k] = Thread.ofPlatform().daemon().name("jrdma-warm-up-" + (k == 0 ? "client" : "server"))
                        .start(() -> {
                            int r = 0;
                            if (k == 0) {
                                warmUpCpus = warmUpThreadCpus();
                            }
                            try {
                                for (; r < count; r++) {
                                    start.await(client.timeout.toNanos(), TimeUnit.NANOSECONDS);
                                    if (stop[0]) {
                                        break;
                                    }
                                    twins[k].run(0);
                                    twins[k].rearm();
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, new IOException("the " + (k == 0 ? "client" : "server")
                                        + " side, run " + (r + 1) + " of " + count + ": " + e.getMessage(), e));
                                // The other twin may wait for this one: ERR flushes its work requests,
                                // the broken barrier ends its wait for the next run.
                                start.reset();
                                client.qps.forEach(QueuePair::toError);
                                server.qps.forEach(QueuePair::toError);
                            }
                        });
            }
            // Every wait inside a run ends within the timeout, and no run starts after the end.
            long deadline = Math.max(System.nanoTime(), end) + 2 * client.timeout.toNanos();
            for (Thread t : threads) {
                if (t != null && !t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    stopped = false;
                    throw new IOException("the loopback runs did not end in time");
                }
            }
            IOException first = failure.get();
            if (first != null) {
                throw first;
            }
        } catch (InterruptedException e) {
            stopped = false;
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            if (stopped) {   // never close what a still running twin uses: the process exit frees it
                client.closeResources();
                server.closeResources();
            }
        }
    }

    private static String warmUpThreadCpus() {
        try {
            return CpuAffinity.allowedCpus();
        } catch (IllegalStateException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private int warmUpRunIters() {
        return kind.bandwidth() ? WARM_UP_BW_RUN_ITERS : WARM_UP_RUN_ITERS;
    }

    private PerftestRunner twin(boolean client, Mtu myMtu, long size) {
        PerftestRunner t = new PerftestRunner(s.forWarmUp(client, size, warmUpRunIters()), spec, true);
        t.context = context;
        t.port = port;
        t.gidIndex = gidIndex;
        t.gid = gid;
        t.outReads = outReads;
        t.inlineSize = inlineSize;
        t.agreedMtu = myMtu;
        t.mtuBytes = myMtu.bytes();
        t.sizes = List.of(size);
        return t;
    }

    /**
     * The warm-up twin after one run, for the next: the receives of a send test again (a run
     * consumes all it posts), and zeros where a write-latency peer writes its counter (a run
     * starts waiting for 1 again). The peer's messages of the run have all arrived by then.
     */
    private void rearm() {
        if (kind == TestKind.WRITE_LAT) {
            mr.segment().fill((byte) 0);
        }
        postReceives(0);
    }

    /** The warm-up twin's buffer, CQs, QPs and address handles, users before what they use. */
    private void closeResources() {
        addressHandles.forEach(AddressHandle::close);
        qps.forEach(QueuePair::close);
        if (recvCq != null && recvCq != sendCq) {
            recvCq.close();
        }
        if (sendCq != null) {
            sendCq.close();
        }
        if (channel != null) {
            channel.close();
        }
        if (mr != null) {
            mr.close();
        }
        if (pd != null) {
            pd.close();
        }
    }

    /** Both sides' address lines, then the result table's header (or the line a passive side prints). */
    private void printConnection(List<PeerInfo> peers) {
        if (!text) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < peers.size(); i++) {
            sb.append(PerftestFormat.address(true, mine.get(i), verb));
            sb.append(PerftestFormat.address(false, peers.get(i), verb));
        }
        out.print(sb);
        boolean table = kind.bandwidth() || s.client() || verb == Verb.SEND || verb == Verb.WRITE;
        if (!table) {
            out.print(PerftestFormat.LINE + "\n");
        } else if (kind.bandwidth()) {
            out.print(PerftestFormat.bandwidthTableHeader(s.reportGbits()));
        } else {
            out.print(PerftestFormat.latencyTableHeader(duration));
        }
        out.flush();
    }

    private void checkGidUse(List<PeerInfo> peers) throws IOException {
        for (PeerInfo p : peers) {
            if (p.hasGid() != (gid != null)) {
                throw new IOException("the peer " + (p.hasGid() ? "uses" : "does not use") + " a GID and this side "
                        + (gid != null ? "does" : "does not") + ": give both sides the same -x");
            }
        }
    }

    @Override
    public void connect(List<PeerInfo> peers) throws IOException {
        remote = List.copyOf(peers);
        printConnection(peers);
        checkGidUse(peers);
        for (int i = 0; i < qps.size(); i++) {
            PeerInfo p = peers.get(i);
            Endpoint remoteEndpoint = new Endpoint(p.qpn(), p.psn(), p.lid(),
                    p.hasGid() ? Gid.of(p.gid()) : Gid.ZERO, agreedMtu);
            ConnectionOptions options = new ConnectionOptions(
                    EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC), 12, s.qpTimeout(), 7, 7,
                    Math.max(1, Math.min(255, p.outReads())), Math.max(1, Math.min(255, outReads)), QKEY, 255,
                    s.sl(), 0);
            QueuePair qp = qps.get(i);
            if (ud) {
                // UD: no remote in the QP; every send names the peer's QP through an address handle.
                qp.toInit(s.ibPort(), options);
                qp.toRtr();
                qp.toRts(options);
                addressHandles.add(pd.createAddressHandle(remoteEndpoint, s.ibPort(), gidIndex, options));
            } else {
                qp.connect(remoteEndpoint, options);
            }
        }
        if (verb == Verb.SEND) {
            postReceives(0);   // before the sync that precedes the first run, as perftest does
        }
        settleJit();
    }

    /**
     * After a warm-up, before the sync that starts the run: the connection's own first-time code
     * (the exchange, QP transitions, the header) queued compilations, and a compiler thread at
     * work during the measurement takes a CPU from it; so wait for an idle JIT once more.
     */
    private void settleJit() {
        if (warmUpRounds > 0) {
            awaitJitIdle(System.nanoTime() + Math.min(SETTLE_MAX_NANOS, timeout.toNanos() / 4));
        }
    }

    /** perftest's ctx_set_recv_wqes: rx-depth receives of the size per QP, into the QP's receive slot. */
    private void postReceives(int index) {
        if (verb != Verb.SEND || (kind == TestKind.SEND_BW && s.client() && !s.bidirectional())) {
            return;
        }
        long size = sizes.get(index);
        for (int i = 0; i < qps.size(); i++) {
            ReceiveRequest r = receiveRequest(i, size);
            for (int k = 0; k < s.rxDepth(); k++) {
                qps.get(i).post(r);
            }
        }
    }

    private ReceiveRequest receiveRequest(int qp, long size) {
        return new ReceiveRequest().wrId(qp).sge(mr, (long) (qps.size() + qp) * slot, (int) size + (ud ? UD_GRH : 0));
    }

    @Override
    public void run(int index) throws IOException {
        long size = sizes.get(index);
        if (duration) {
            runForDuration(size);
            return;
        }
        switch (kind) {
            case SEND_LAT -> latencyRow(size, sendLatency(size), true);
            case WRITE_LAT -> latencyRow(size, writeLatency(size), true);
            case READ_LAT, ATOMIC_LAT -> latencyRow(size, roundTripLatency(size), false);
            case SEND_BW -> {
                if (s.bidirectional()) {
                    lastReport = sendBandwidthBidirectional(size);   // printed with the peer's sum
                } else if (s.client()) {
                    bandwidthRow(bandwidthClient(size));
                } else {
                    bandwidthRow(sendBandwidthServer(size));
                }
            }
            case WRITE_BW, READ_BW, ATOMIC_BW -> {
                // -b: both sides run this; each prints the sum once the reports are exchanged
                lastReport = bandwidthClient(size);
                if (!s.bidirectional()) {
                    bandwidthRow(lastReport);
                }
            }
        }
        if (index + 1 < sizes.size()) {
            postReceives(index + 1);
        }
    }

    private void latencyRow(long size, long[] posted, boolean roundTrip) {
        LatencyReport r = LatencyReport.fromPostTimes(size, posted, roundTrip);
        latencyRows.add(r);
        if (text) {
            out.print(PerftestFormat.latencyRow(r));
            out.flush();
        }
    }

    private void bandwidthRow(BwReportData r) {
        bwRows.add(r);
        if (text) {
            out.print(PerftestFormat.bandwidthRow(r, s.reportGbits()));
            out.flush();
        }
    }

    /**
     * Empty polls between two looks at the clock while waiting. The clock stays out of the
     * polling loop: System.nanoTime is ~25 ns on hardware but 1-5 us in a VM whose clocksource
     * is the HPET (e.g. Soft-RoCE under qemu TCG), which would add that much to each wait.
     */
    private static final int SPINS_PER_CLOCK_READ = 1 << 12;

    /** Polls one completion of {@code cq} within the timeout; fails on an error status. */
    private WorkCompletion take(CompletionQueue cq, String what) throws IOException {
        if (channel != null) {
            return takeWithEvents(cq, what);
        }
        // Only the busy-poll stays in this method: with the clock and the channel path in it,
        // C2 (tiered, as on hardware) ran out of its node budget inlining take() and post()
        // into sendLatency and called them instead (docs/performance.md, "The JIT under emulation").
        long deadline = 0;
        int spins = 0;
        while (cq.poll(wc) == 0) {
            // busy-poll as perftest does (no pause: it only delays seeing the completion)
            if ((++spins & spinMask) == 0) {
                deadline = checkDeadline(deadline, what);
            }
        }
        if (!wc.isSuccess()) {
            throw failed(what, wc);
        }
        return wc;
    }

    /** Starts the wait's deadline on the first call; throws once it has passed. */
    private long checkDeadline(long deadline, String what) throws IOException {
        long now = System.nanoTime();
        if (deadline == 0) {
            return now + timeoutNanos;
        }
        if (now - deadline > 0) {
            throw noCompletion(what);
        }
        return deadline;
    }

    /** take() with -e: arm, poll once more (a completion may have slipped in), then sleep on the channel. */
    private WorkCompletion takeWithEvents(CompletionQueue cq, String what) throws IOException {
        long deadline = 0;
        while (cq.poll(wc) == 0) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + timeoutNanos;
            }
            long left = deadline - now;
            if (left < 0) {
                throw noCompletion(what);
            }
            cq.requestNotification(false);
            if (cq.poll(wc) != 0) {
                break;
            }
            sleepOnChannel(Duration.ofNanos(Math.min(left, 100_000_000L)));
        }
        if (!wc.isSuccess()) {
            throw failed(what, wc);
        }
        return wc;
    }

    /** Sleeps on the completion channel until an event or {@code bound}; the caller polls either way. */
    private void sleepOnChannel(Duration bound) {
        try {
            channel.await(bound);
        } catch (RdmaTimeoutException quiet) {
            // nothing arrived within the bound: the caller's loop checks its own deadline
        }
    }

    // Built out of line so that take() stays small enough for the JIT to inline into the loops.
    private RdmaTimeoutException noCompletion(String what) {
        return new RdmaTimeoutException("no " + what + " completion", "the test's completion queues", timeout, STALLED);
    }

    private static IOException failed(String what, WorkCompletion wc) {
        return new IOException(what + " failed: " + wc.status() + " (wr_id " + wc.wrId() + ", vendor error 0x"
                + Integer.toHexString(wc.vendorError()) + ")");
    }

    /** Polls up to a batch; with -e sleeps on the channel (up to 100 ms) when the CQ is empty. */
    private int pollBatch(CompletionQueue cq) {
        int ne = cq.poll(batch);
        if (ne == 0 && channel != null) {
            cq.requestNotification(false);
            ne = cq.poll(batch);
            if (ne == 0) {
                sleepOnChannel(Duration.ofMillis(100));
            }
        }
        return ne;
    }

    private SendRequest sendRequest(int qp, long size, SendOpcode opcode) {
        SendRequest r = new SendRequest().wrId(qp).opcode(opcode);
        if (verb == Verb.ATOMIC) {
            r.sge(mr, (long) qp * slot, 8).compareAdd(s.atomicType() == TestKind.AtomicType.CMP_AND_SWAP ? 0 : ATOMIC_ADD)
                    .swap(ATOMIC_SWAP);
        } else {
            r.sge(mr, (long) qp * slot, (int) size);
        }
        if (verb != Verb.SEND) {
            PeerInfo p = remote.get(qp);
            r.remote(new RemoteMemory(p.vaddr(), verb == Verb.ATOMIC ? 8 : size, p.rkey()));
        } else if (ud) {
            r.datagram(addressHandles.get(qp), remote.get(qp).qpn(), QKEY);
        }
        if ((verb == Verb.SEND || verb == Verb.WRITE) && size <= inlineSize) {
            r.inline(true);
        }
        return r;
    }

    private SendOpcode opcode() {
        return switch (verb) {
            case SEND -> SendOpcode.SEND;
            case WRITE -> SendOpcode.RDMA_WRITE;
            case READ -> SendOpcode.RDMA_READ;
            case ATOMIC -> s.atomicType() == TestKind.AtomicType.CMP_AND_SWAP ? SendOpcode.ATOMIC_CMP_AND_SWP
                    : SendOpcode.ATOMIC_FETCH_AND_ADD;
        };
    }

    /** The operation as errors name it. */
    private String operationName() {
        return switch (verb) {
            case SEND -> "send";
            case WRITE -> "RDMA write";
            case READ -> "RDMA read";
            case ATOMIC -> "atomic";
        };
    }

    /** run_iter_lat_send: the client sends first; each side re-posts its receive while more are due. */
    private long[] sendLatency(long size) throws IOException {
        int iters = Math.toIntExact(s.iters());
        long[] posted = new long[iters];
        QueuePair qp = qps.getFirst();
        SendRequest send = sendRequest(0, size, SendOpcode.SEND).signaled(true);
        ReceiveRequest recv = receiveRequest(0, size);
        int scnt = 0;
        int rcnt = 0;
        while (scnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && s.client())) {
                take(recvCq, "receive");
                rcnt++;
                if (rcnt + s.rxDepth() <= iters) {
                    qp.post(recv);
                }
            }
            if (scnt < iters) {
                // perftest reads the clock just before the post; we read it just after, while the
                // message is on its way, so a slow clock is off the round trip. Consecutive
                // deltas - all the report uses - are the same period either way.
                qp.post(send);
                posted[scnt++] = System.nanoTime();
                take(sendCq, "send");
            }
        }
        return posted;
    }

    /** run_iter_lat_write: write the counter into the peer's last byte, spin on our own; the server writes first. */
    private long[] writeLatency(long size) throws IOException {
        int iters = Math.toIntExact(s.iters());
        long[] posted = new long[iters];
        QueuePair qp = qps.getFirst();
        SendRequest write = sendRequest(0, size, SendOpcode.RDMA_WRITE).signaled(true);
        MemorySegment buf = mr.segment();
        long postOffset = size - 1;
        long pollOffset = (long) qps.size() * slot + size - 1;
        int scnt = 0;
        int ccnt = 0;
        int rcnt = 0;
        while (scnt < iters || ccnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !s.client())) {
                rcnt++;
                byte expected = (byte) rcnt;
                long deadline = 0;
                int spins = 0;
                while ((byte) BYTE.getVolatile(buf, pollOffset) != expected) {
                    if ((++spins & spinMask) == 0) {
                        long now = System.nanoTime();
                        if (deadline == 0) {
                            deadline = now + timeout.toNanos();
                        } else if (now - deadline > 0) {
                            throw new RdmaTimeoutException("write " + rcnt + " of the peer did not arrive", mr,
                                    timeout, STALLED);
                        }
                    }
                }
            }
            if (scnt < iters) {
                BYTE.setVolatile(buf, postOffset, (byte) (scnt + 1));
                qp.post(write);
                posted[scnt++] = System.nanoTime();   // after the post, as in sendLatency
            }
            if (ccnt < iters) {
                take(sendCq, "RDMA write");
                ccnt++;
            }
        }
        return posted;
    }

    /** run_iter_lat: read/atomic round trips, one at a time (the client only). */
    private long[] roundTripLatency(long size) throws IOException {
        int iters = Math.toIntExact(s.iters());
        long[] posted = new long[iters];
        QueuePair qp = qps.getFirst();
        SendRequest r = sendRequest(0, size, opcode()).signaled(true);
        String what = operationName();
        for (int i = 0; i < iters; i++) {
            qp.post(r);
            posted[i] = System.nanoTime();   // after the post, as in sendLatency
            take(sendCq, what);
        }
        return posted;
    }

    /**
     * run_iter_bw: per QP keep up to tx-depth messages outstanding, signal every cq-mod-th and the
     * last; record post and completion times for the peak.
     */
    private BwReportData bandwidthClient(long size) throws IOException {
        CountedSends sends = new CountedSends(size, opcode());
        String what = operationName();
        long deadline = 0;
        int idle = 0;
        sends.start();
        while (!sends.allCompleted()) {
            sends.post();
            int ne = pollBatch(sendCq);
            if (ne > 0) {
                deadline = 0;
                idle = 0;
                for (int i = 0; i < ne; i++) {
                    sends.complete(succeeded(batch.get(i), what));
                }
            } else if (channel != null || (++idle & spinMask) == 0) {
                deadline = checkDeadline(deadline, what);
            }
        }
        return sends.report(size);
    }

    /** run_iter_bw_server: receive iters messages per QP, re-posting while more are due; no peak. */
    private BwReportData sendBandwidthServer(long size) throws IOException {
        CountedReceives recvs = new CountedReceives(size);
        long first = 0;
        long deadline = 0;
        int idle = 0;
        while (!recvs.allReceived()) {
            int ne = pollBatch(recvCq);
            if (ne > 0) {
                if (first == 0) {
                    first = System.nanoTime();
                }
                deadline = 0;
                idle = 0;
                for (int i = 0; i < ne; i++) {
                    recvs.complete(succeeded(batch.get(i), "receive"));
                }
            } else if (channel != null || (++idle & spinMask) == 0) {
                deadline = checkDeadline(deadline, "receive");
            }
        }
        long end = System.nanoTime();
        return BandwidthMath.report(size, recvs.total, new long[] {first}, new long[] {end}, 1, 1, true,
                s.reportGbits());
    }

    /**
     * run_iter_bi for send_bw -b: each side sends iters messages per QP (as {@link #bandwidthClient})
     * while it receives and re-posts the peer's; the run ends when both are done. The report is
     * over the sends, as perftest's.
     */
    private BwReportData sendBandwidthBidirectional(long size) throws IOException {
        CountedSends sends = new CountedSends(size, SendOpcode.SEND);
        CountedReceives recvs = new CountedReceives(size);
        boolean armed = false;
        long deadline = System.nanoTime() + timeoutNanos;
        sends.start();
        while (!sends.allCompleted() || !recvs.allReceived()) {
            sends.post();
            int ne = sends.allCompleted() ? 0 : sendCq.poll(batch);
            for (int i = 0; i < ne; i++) {
                sends.complete(succeeded(batch.get(i), "send"));
            }
            int nr = recvs.allReceived() ? 0 : recvCq.poll(batch);
            for (int i = 0; i < nr; i++) {
                recvs.complete(succeeded(batch.get(i), "receive"));
            }
            if (ne > 0 || nr > 0) {
                deadline = System.nanoTime() + timeoutNanos;
                armed = false;
            } else {
                if (System.nanoTime() - deadline > 0) {
                    throw new RdmaTimeoutException("no " + (sends.allCompleted() ? "receive" : "send") + " completion",
                            "the test's completion queues", timeout, STALLED + " (sent " + sends.totccnt + " of "
                            + sends.total + ", received " + recvs.received + " of " + recvs.total + ")");
                }
                armed = awaitEither(armed);
            }
        }
        return sends.report(size);
    }

    /**
     * run_iter_bw's sending side in counted mode: per QP up to tx-depth messages outstanding,
     * every cq-mod-th and each QP's last signalled. The wr_id carries the QP (high 32 bits) and
     * the message's 1-based index, so that one completion accounts for the unsignalled messages
     * before it. Each post and completion is timed for the peak; with -N only the first post and
     * the last completion.
     */
    private final class CountedSends {
        private final SendRequest[] reqs;
        private final int iters;
        private final int total;
        private final int cqMod;
        private final int tx;
        private final boolean peak;
        private final int[] scnt;
        private final int[] ccnt;
        private final long[] posted;
        private final long[] completed;
        private int totscnt;
        private int totccnt;

        CountedSends(long size, SendOpcode opcode) {
            int n = qps.size();
            iters = Math.toIntExact(s.iters());
            total = iters * n;
            cqMod = s.cqMod();
            tx = s.txDepth();
            peak = !s.noPeak();
            reqs = new SendRequest[n];
            for (int i = 0; i < n; i++) {
                reqs[i] = sendRequest(i, size, opcode);
            }
            scnt = new int[n];
            ccnt = new int[n];
            posted = new long[total];
            completed = new long[total];
        }

        /** Starts the clock with -N. */
        void start() {
            if (!peak) {
                posted[0] = System.nanoTime();
            }
        }

        /** Tops every QP up to tx-depth outstanding messages. */
        void post() {
            for (int q = 0; q < reqs.length; q++) {
                while (scnt[q] < iters && scnt[q] - ccnt[q] + 1 <= tx) {
                    int idx = scnt[q];
                    reqs[q].signaled(idx % cqMod == cqMod - 1 || idx == iters - 1).wrId(((long) q << 32) | (idx + 1));
                    if (peak) {
                        posted[totscnt] = System.nanoTime();
                    }
                    qps.get(q).post(reqs[q]);
                    scnt[q]++;
                    totscnt++;
                }
            }
        }

        /** Accounts a successful completion for its message and the unsignalled ones before it. */
        void complete(WorkCompletion c) {
            int q = (int) (c.wrId() >>> 32);
            int done = (int) c.wrId();
            totccnt += done - ccnt[q];
            ccnt[q] = done;
            if (peak) {
                completed[totccnt - 1] = System.nanoTime();
            }
        }

        boolean allCompleted() {
            return totccnt == total;
        }

        BwReportData report(long size) {
            if (!peak) {
                completed[0] = System.nanoTime();
            }
            return BandwidthMath.report(size, total, posted, completed, cqMod, 1, !peak, s.reportGbits());
        }
    }

    /**
     * The receiving side in counted mode: postReceives put rx-depth receives on each QP before
     * the run; every completion re-posts one while the QP still expects more than it has posted.
     */
    private final class CountedReceives {
        private final ReceiveRequest[] reqs;
        private final int iters;
        private final int total;
        private final int[] posted;
        private int received;

        CountedReceives(long size) {
            reqs = receiveRequests(size);
            iters = Math.toIntExact(s.iters());
            total = iters * reqs.length;
            posted = new int[reqs.length];
            java.util.Arrays.fill(posted, s.rxDepth());
        }

        /** Accounts a successful receive completion. */
        void complete(WorkCompletion c) {
            int q = (int) c.wrId();
            received++;
            if (posted[q] < iters) {
                qps.get(q).post(reqs[q]);
                posted[q]++;
            }
        }

        boolean allReceived() {
            return received == total;
        }
    }

    private ReceiveRequest[] receiveRequests(long size) {
        ReceiveRequest[] reqs = new ReceiveRequest[qps.size()];
        for (int i = 0; i < reqs.length; i++) {
            reqs[i] = receiveRequest(i, size);
        }
        return reqs;
    }

    /** {@code c} if it succeeded; the failure otherwise. */
    private static WorkCompletion succeeded(WorkCompletion c, String what) throws IOException {
        if (!c.isSuccess()) {
            throw failed(what, c);
        }
        return c;
    }

    /**
     * -e in the loops that wait on both CQs: an idle pass arms both, the next one (which polls
     * once more, in case a completion slipped in) sleeps on the channel. Returns whether the CQs
     * are armed now; without -e it does nothing.
     */
    private boolean awaitEither(boolean armed) {
        if (channel == null) {
            return false;
        }
        if (armed) {
            sleepOnChannel(Duration.ofMillis(100));
            return false;
        }
        sendCq.requestNotification(false);
        recvCq.requestNotification(false);
        return true;
    }

    // ---- -D: perftest's duration mode -------------------------------------------------------

    /**
     * perftest's duration states as times, not SIGALRM: a warm-up margin, the sample window in
     * which iterations are counted, a cool-down margin, then the end. The margin is -D / 4 whole
     * seconds, as perftest's default (-f); the reported rate is the window's count over the
     * window's length.
     */
    private record Window(long start, long sampleStart, long sampleEnd, long end) {
        static Window from(long start, int seconds) {
            long margin = (seconds / 4) * 1_000_000_000L;
            long total = seconds * 1_000_000_000L;
            return new Window(start, start + margin, start + total - margin, start + total);
        }

        boolean sampling(long now) {
            return now - sampleStart >= 0 && now - sampleEnd < 0;
        }

        boolean over(long now) {
            return now - end >= 0;
        }

        long length() {
            return sampleEnd - sampleStart;
        }
    }

    private void runForDuration(long size) throws IOException {
        progress = ProgressLine.forRun(s, spec.commandLine().getErr(), ProgressLine.stderrIsTerminal());
        try {
            switch (kind) {
                case SEND_LAT, WRITE_LAT, READ_LAT, ATOMIC_LAT -> {
                    DurationLatency r = latencyForDuration(size);
                    durationRows.add(r);
                    progress.finish();
                    if (text) {
                        out.print(r.row());
                        out.flush();
                    }
                }
                case SEND_BW -> {
                    // -b: send_bw exchanges no report in duration runs; each side prints its own row
                    BwReportData r = s.bidirectional() ? sendBandwidthBidirectionalForDuration(size)
                            : s.client() ? bandwidthForDuration(size) : sendBandwidthServerForDuration(size);
                    progress.finish();
                    bandwidthRow(r);
                }
                case WRITE_BW, READ_BW, ATOMIC_BW -> {
                    lastReport = bandwidthForDuration(size);
                    progress.finish();
                    if (!s.bidirectional()) {
                        bandwidthRow(lastReport);   // -b: the report exchange prints the sum
                    }
                }
            }
        } finally {
            progress.finish();
        }
    }

    private BwReportData windowReport(long size, long counted, Window w) {
        if (counted == 0) {
            throw new IllegalStateException("no message completed in the " + (w.length() / 1_000_000) + " ms sample "
                    + "window of -D " + s.durationSeconds() + ": the device or the peer is too slow for this duration");
        }
        return BandwidthMath.report(size, counted, new long[] {w.sampleStart()}, new long[] {w.sampleEnd()}, 1, 1,
                true, s.reportGbits());
    }

    /**
     * run_iter_bw in duration mode (the client; both sides with -b): keep tx-depth
     * messages outstanding, every cq-mod-th signalled, until the end; count the messages whose
     * completions arrive inside the sample window. Outstanding messages are left to the QP's
     * teardown, as perftest does.
     */
    private BwReportData bandwidthForDuration(long size) throws IOException {
        DurationSends sends = new DurationSends(size, opcode());
        String what = operationName();
        Window w = Window.from(System.nanoTime(), s.durationSeconds());
        long counted = 0;
        long deadline = w.start() + timeoutNanos;
        while (true) {
            sends.post();
            int ne = pollBatch(sendCq);
            long now = System.nanoTime();
            for (int i = 0; i < ne; i++) {
                sends.complete(succeeded(batch.get(i), what));
                if (w.sampling(now)) {
                    counted += sends.cqMod;
                }
            }
            if (w.over(now)) {
                break;
            }
            if (ne > 0) {
                deadline = now + timeoutNanos;
            } else if (now - deadline > 0) {
                throw noCompletion(what);
            }
            progress.update(now, now - w.start(), counted);
        }
        return windowReport(size, counted, w);
    }

    /**
     * run_iter_bi in duration mode (send-bw -b -D): the client starts its clock and its sends at
     * once, the server at its first receive; sends go in groups of cq-mod as in
     * {@link #bandwidthForDuration}, every receive is re-posted, and the window counts both
     * directions (send completions x cq-mod plus receives), as perftest's row does.
     */
    private BwReportData sendBandwidthBidirectionalForDuration(long size) throws IOException {
        DurationSends sends = new DurationSends(size, SendOpcode.SEND);
        ReceiveRequest[] recvs = receiveRequests(size);
        Window w = s.client() ? Window.from(System.nanoTime(), s.durationSeconds()) : null;
        long counted = 0;
        boolean armed = false;
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (w != null) {
                sends.post();
            }
            int ne = sendCq.poll(batch);
            long now = System.nanoTime();
            for (int i = 0; i < ne; i++) {
                sends.complete(succeeded(batch.get(i), "send"));
                if (w != null && w.sampling(now)) {
                    counted += sends.cqMod;
                }
            }
            int nr = recvCq.poll(batch);
            now = System.nanoTime();
            if (nr > 0 && w == null) {
                w = Window.from(now, s.durationSeconds());   // the server starts at its first receive
            }
            for (int i = 0; i < nr; i++) {
                repost(recvs, succeeded(batch.get(i), "receive"));
                if (w.sampling(now)) {
                    counted++;
                }
            }
            if (w != null && w.over(now)) {
                break;
            }
            if (ne > 0 || nr > 0) {
                deadline = now + timeoutNanos;
                armed = false;
            } else {
                if (now - deadline > 0) {
                    throw new RdmaTimeoutException("no completion", "the test's completion queues", timeout, STALLED);
                }
                armed = awaitEither(armed);
            }
            if (w != null) {
                progress.update(now, now - w.start(), counted);
            }
        }
        return windowReport(size, counted, w);
    }

    /** run_iter_bw_server in duration mode: the clock starts at the first receive; re-post every receive. */
    private BwReportData sendBandwidthServerForDuration(long size) throws IOException {
        ReceiveRequest[] recvs = receiveRequests(size);
        Window w = null;
        long counted = 0;
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            int ne = pollBatch(recvCq);
            long now = System.nanoTime();
            if (ne > 0 && w == null) {
                w = Window.from(now, s.durationSeconds());   // set_on_first_rx_packet
            }
            for (int i = 0; i < ne; i++) {
                repost(recvs, succeeded(batch.get(i), "receive"));
                if (w.sampling(now)) {
                    counted++;
                }
            }
            if (w != null && w.over(now)) {
                break;
            }
            if (ne > 0) {
                deadline = now + timeoutNanos;
            } else if (now - deadline > 0) {
                throw noCompletion("receive");
            }
            if (w != null) {
                progress.update(now, now - w.start(), counted);
            }
        }
        return windowReport(size, counted, w);
    }

    /**
     * Duration mode's sending side: each QP is topped up to tx-depth outstanding in whole groups
     * of cq-mod messages, the last of each group signalled, so that a completion stands for
     * cq-mod messages (wr_id: the QP).
     */
    private final class DurationSends {
        private final SendRequest[] reqs;
        private final int cqMod;
        private final int tx;
        private final long[] scnt;
        private final long[] ccnt;

        DurationSends(long size, SendOpcode opcode) {
            int n = qps.size();
            cqMod = s.cqMod();
            tx = s.txDepth();
            reqs = new SendRequest[n];
            for (int i = 0; i < n; i++) {
                reqs[i] = sendRequest(i, size, opcode).wrId(i);
            }
            scnt = new long[n];
            ccnt = new long[n];
        }

        void post() {
            for (int q = 0; q < reqs.length; q++) {
                while (scnt[q] - ccnt[q] + cqMod <= tx) {
                    for (int k = 0; k < cqMod; k++) {
                        reqs[q].signaled(k == cqMod - 1);
                        qps.get(q).post(reqs[q]);
                    }
                    scnt[q] += cqMod;
                }
            }
        }

        /** Accounts a successful completion for its group. */
        void complete(WorkCompletion c) {
            ccnt[(int) c.wrId()] += cqMod;
        }
    }

    /** Re-posts the receive that completed as {@code c} (wr_id: the QP). */
    private void repost(ReceiveRequest[] recvs, WorkCompletion c) {
        int q = (int) c.wrId();
        qps.get(q).post(recvs[q]);
    }

    /**
     * The latency loops in duration mode (perftest's run_iter_lat*, test_type DURATION): the
     * same exchanges as the counted runs, until this side's end; iterations are counted in the
     * sample window. A side whose peer ended first stops waiting at its own end, so waits are
     * bounded by the end as well as by the timeout.
     */
    private DurationLatency latencyForDuration(long size) throws IOException {
        QueuePair qp = qps.getFirst();
        Window w = Window.from(System.nanoTime(), s.durationSeconds());
        long counted = 0;
        switch (verb) {
            case SEND -> {
                SendRequest send = sendRequest(0, size, SendOpcode.SEND).signaled(true);
                ReceiveRequest recv = receiveRequest(0, size);
                boolean first = true;
                while (true) {
                    if (!(first && s.client())) {
                        if (!takeUntil(recvCq, "receive", w)) {
                            break;
                        }
                        qp.post(recv);
                    }
                    first = false;
                    qp.post(send);
                    if (!takeUntil(sendCq, "send", w)) {
                        break;
                    }
                    long now = System.nanoTime();
                    if (w.sampling(now)) {
                        counted++;
                    }
                    if (w.over(now)) {
                        break;
                    }
                    progress.update(now, now - w.start(), counted);
                }
            }
            case WRITE -> {
                SendRequest write = sendRequest(0, size, SendOpcode.RDMA_WRITE).signaled(true);
                MemorySegment buf = mr.segment();
                long postOffset = size - 1;
                long pollOffset = (long) qps.size() * slot + size - 1;
                byte scnt = 0;
                byte rcnt = 0;
                boolean first = true;
                outer:
                while (true) {
                    if (!(first && !s.client())) {
                        long deadline = System.nanoTime() + timeout.toNanos();
                        int spins = 0;
                        while ((byte) BYTE.getVolatile(buf, pollOffset) != (byte) (rcnt + 1)) {
                            if ((++spins & 0xfff) == 0) {
                                long now = System.nanoTime();
                                if (w.over(now)) {
                                    break outer;
                                }
                                if (now - deadline > 0) {
                                    throw new RdmaTimeoutException("the peer's write did not arrive", mr, timeout,
                                            STALLED);
                                }
                            }
                            // no Thread.onSpinWait: as in take(), a PAUSE only delays seeing the completion
                        }
                        rcnt++;
                    }
                    first = false;
                    BYTE.setVolatile(buf, postOffset, ++scnt);
                    qp.post(write);
                    if (!takeUntil(sendCq, "RDMA write", w)) {
                        break;
                    }
                    long now = System.nanoTime();
                    if (w.sampling(now)) {
                        counted++;
                    }
                    if (w.over(now)) {
                        break;
                    }
                    progress.update(now, now - w.start(), counted);
                }
                lingerForWriteLatency(write, buf, postOffset, pollOffset, scnt, rcnt);
            }
            case READ, ATOMIC -> {
                SendRequest r = sendRequest(0, size, opcode()).signaled(true);
                String what = operationName();
                while (true) {
                    qp.post(r);
                    if (!takeUntil(sendCq, what, w)) {
                        break;
                    }
                    long now = System.nanoTime();
                    if (w.sampling(now)) {
                        counted++;
                    }
                    if (w.over(now)) {
                        break;
                    }
                    progress.update(now, now - w.start(), counted);
                }
            }
        }
        if (counted == 0) {
            throw new IllegalStateException("no iteration completed in the sample window of -D "
                    + s.durationSeconds() + ": the peer is too slow for this duration");
        }
        return DurationLatency.of(size, counted, w.length(), verb == Verb.SEND || verb == Verb.WRITE);
    }

    /**
     * After this side's -D end, keep answering the peer's writes until it has been quiet for
     * {@link #LINGER_QUIET_NANOS} (at most {@link #LINGER_MAX_NANOS}). perftest's write_lat waits for the peer's byte in a loop whose
     * end-of-run check the compiler may hoist (its state is not volatile), so a perftest peer
     * whose end comes later than ours would otherwise spin forever on a byte we never write
     * (observed with ib_write_lat -D as the client of a jrdma server).
     */
    private void lingerForWriteLatency(SendRequest write, MemorySegment buf, long postOffset, long pollOffset,
                                       byte scnt, byte rcnt) throws IOException {
        long quietSince = System.nanoTime();
        long giveUp = quietSince + LINGER_MAX_NANOS;
        while (true) {
            long now = System.nanoTime();
            if (now - quietSince > LINGER_QUIET_NANOS || now - giveUp > 0) {
                return;
            }
            if ((byte) BYTE.getVolatile(buf, pollOffset) == (byte) (rcnt + 1)) {
                rcnt++;
                BYTE.setVolatile(buf, postOffset, ++scnt);
                qp0().post(write);
                take(sendCq, "RDMA write");
                quietSince = System.nanoTime();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private QueuePair qp0() {
        return qps.getFirst();
    }

    /** Like {@link #take} but gives up quietly (false) at the window's end. */
    private boolean takeUntil(CompletionQueue cq, String what, Window w) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (cq.poll(wc) == 0) {
            if ((++spins & 0xff) == 0) {
                long now = System.nanoTime();
                if (w.over(now)) {
                    return false;
                }
                if (now - deadline > 0) {
                    throw new RdmaTimeoutException("no " + what + " completion", "the test's completion queues",
                            timeout, STALLED);
                }
                if (channel != null) {
                    cq.requestNotification(false);
                    if (cq.poll(wc) != 0) {
                        break;
                    }
                    sleepOnChannel(Duration.ofMillis(Math.max(1, Math.min(100, (w.end() - now) / 1_000_000))));
                }
            }
            // no Thread.onSpinWait: as in take(), a PAUSE only delays seeing the completion
        }
        if (!wc.isSuccess()) {
            throw new IOException(what + " failed: " + wc.status() + " (wr_id " + wc.wrId() + ", vendor error 0x"
                    + Integer.toHexString(wc.vendorError()) + ")");
        }
        return true;
    }

    @Override
    public BwReportData bandwidthReport() {
        if (lastReport != null) {
            return lastReport;
        }
        return new BwReportData(sizes.getLast(), s.iters() * s.qps(), 0, 0, 0);
    }

    @Override
    public void remoteBandwidthReport(BwReportData remoteReport) {
        if (s.bidirectional()) {
            bandwidthRow(lastReport.plus(remoteReport));   // print_full_bw_report: both directions' sum
        } else if (!s.client() && kind != TestKind.SEND_BW) {
            bandwidthRow(remoteReport);   // the passive server prints the client's numbers
        }
    }

    private void finish() throws IOException {
        Map<String, Object> parameters = s.toParameters();
        parameters.put("warm_up_rounds", warmUpRounds);
        parameters.put("warm_up_ms", warmUpNanos / 1_000_000);
        if (warmUpCpus != null) {
            parameters.put("warm_up_cpus", warmUpCpus);
        }
        RunReport report = new RunReport(kind.command(), info, parameters, peerVersion, mine, remote,
                latencyRows, bwRows, s.reportGbits(), durationRows);
        if (text) {
            boolean table = kind.bandwidth() || s.client() || verb == Verb.SEND || verb == Verb.WRITE;
            if (table) {
                out.print(PerftestFormat.LINE + "\n");
            }
        } else if (s.json()) {
            JsonReport.write(report, out);
        } else if (s.csv()) {
            CsvReport.write(report, out);
        } else if (s.output() != null) {
            for (LatencyReport r : latencyRows) {
                out.print(PerftestFormat.single(r.tAvg()));
            }
            for (DurationLatency r : durationRows) {
                out.print(PerftestFormat.single(r.tAvgUs()));
            }
            for (BwReportData r : bwRows) {
                out.print(PerftestFormat.single(switch (s.output()) {
                    case message_rate -> r.msgRate();
                    default -> r.bwAvg();
                }));
            }
        }
        out.flush();
        ReportFiles.write(report, s);
    }
}
