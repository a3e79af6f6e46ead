// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.PeerInfo;
import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.PerftestSession;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.ProgressLine;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.util.List;

/**
 * The run of a session whose {@link Side} {@link PerftestRunner} has set up: the steps
 * {@link PerftestSession}'s schedule calls - connect the QPs to the peer's records, run perftest's
 * measurement loops ({@link LatencyLoops}, {@link BandwidthLoops}) per size, and print or
 * exchange the rows.
 */
final class TestRun implements PerftestSession.Device {
    private final PerftestSettings s;
    private final Console console;
    private final Side side;
    private final RunOutput output;
    private final WarmUp warmUp;
    private final boolean duration;
    /** -R: the rdma_cm set-up of the session. */
    RdmaCmSetup rdmaCm;
    /** The out-of-band channel of the schedule (--run_infinitely watches it for the peer's stop). */
    PerftestChannel oob;
    private BwReportData lastReport;

    TestRun(PerftestSettings s, Console console, Side side, RunOutput output, WarmUp warmUp) {
        this.s = s;
        this.console = console;
        this.side = side;
        this.output = output;
        this.warmUp = warmUp;
        this.duration = s.durationSeconds() > 0;
    }

    @Override
    public void connect(List<PeerInfo> peers) throws IOException {
        side.records.remote = List.copyOf(peers);
        output.connection(side.records.mine, peers);
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
        return List.copyOf(side.records.mine);
    }

    /**
     * -R: the peer's records after a key exchange. The first one also does what {@link #connect}
     * does after the QP transitions over TCP: print both sides' addresses and the table header,
     * and post the receives of a SEND test before the sync that precedes the first run.
     */
    @Override
    public void rdmaCmKeys(List<PeerInfo> peers) throws IOException {
        boolean first = side.records.remote.isEmpty();
        side.records.remote = List.copyOf(peers);
        if (first) {
            side.checkGidUse(peers);
            output.connection(side.records.mine, peers);
            side.postReceives(0);
        }
    }

    @Override
    public void run(int index) throws IOException {
        long size = side.session.sizes().get(index);
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
        if (!duration && index + 1 < side.session.sizes().size()) {
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
        return new BwReportData(side.session.sizes().getLast(), s.iters() * s.qps(), 0, 0, 0);
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
            validate(side.session.sizes().getFirst());   // the write-bw server (both with -b): the peer's run has ended
        }
    }
}
