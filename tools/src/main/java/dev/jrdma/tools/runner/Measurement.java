// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.DurationLatency;
import dev.jrdma.tools.perftest.LatencyReport;
import dev.jrdma.tools.perftest.ProgressLine;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;

/**
 * One run of a side's test over one message size: the stop rule from -n or -D, the loop for
 * the test and the side's role, and the row it yields. The measurement and the warm-up twins
 * run the same code through here.
 */
final class Measurement {
    /** The row of one run: exactly one of the three is set. */
    record Row(LatencyReport latency, DurationLatency windowLatency, BwReportData bandwidth) {
    }

    private Measurement() {
    }

    /**
     * -D: a window with the progress line (-f's margins, --cpu_util's samples); else a count of
     * -n (post times kept by the latency tests); --latency_gap before each post of either.
     */
    static StopRule rule(Side side, ProgressLine progress) {
        int seconds = side.s.durationSeconds();
        StopRule rule = seconds > 0
                ? StopRule.window(seconds, side.s.reports().margin(), CpuUsage.forRun(side.s.reports().cpuUtil(), true),
                        progress)
                : StopRule.count(side.s.iters(), !side.kind.bandwidth());
        return rule.withGap(side.s.run().latencyGapMicros());
    }

    static Row run(Side side, long size, StopRule rule) throws IOException {
        TestKind kind = side.kind;
        switch (kind) {
            case SEND_LAT -> LatencyLoops.send(side, size, rule);
            case WRITE_LAT -> {
                if (side.writeImmediate) {
                    LatencyLoops.send(side, size, rule);   // run_iter_lat_write_imm: a ping-pong of receives
                } else {
                    LatencyLoops.write(side, size, rule);
                }
            }
            case READ_LAT, ATOMIC_LAT -> LatencyLoops.roundTrip(side, size, rule);
            case SEND_BW -> {
                if (side.s.bidirectional()) {
                    return bandwidth(BandwidthLoops.sendBidirectional(side, size, rule));
                }
                return bandwidth(side.s.testClient() ? BandwidthLoops.client(side, size, rule)
                        : BandwidthLoops.sendServer(side, size, rule));
            }
            case WRITE_BW, READ_BW, ATOMIC_BW -> {
                if (side.writeImmediate && side.s.bidirectional()) {
                    return bandwidth(BandwidthLoops.sendBidirectional(side, size, rule));
                }
                if (side.writeImmediate && !side.s.client()) {
                    return bandwidth(BandwidthLoops.sendServer(side, size, rule));
                }
                return bandwidth(BandwidthLoops.client(side, size, rule));
            }
        }
        boolean roundTrip = side.verb == Verb.SEND || side.verb == Verb.WRITE;
        if (!rule.timed()) {
            return new Row(LatencyReport.fromPostTimes(size, rule.postTimes(), roundTrip), null, null);
        }
        if (rule.counted() == 0) {
            throw new IllegalStateException("no iteration completed in the sample window of -D "
                    + side.s.durationSeconds() + ": the peer is too slow for this duration");
        }
        return new Row(null, DurationLatency.of(size, rule.counted(), rule.window().length(), roundTrip), null);
    }

    private static Row bandwidth(BwReportData r) {
        return new Row(null, null, r);
    }
}
