// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.BwReportData;
import dev.jrdma.tools.perftest.PerftestChannel;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.TestKind;
import java.io.IOException;

/**
 * The run-control options' steps around a measurement (perftest's --run_infinitely,
 * --perform_warm_up, --wait_destroy, and --cpu_util's warning), kept out of the runner's flow
 * so that it calls one method for each.
 */
final class RunControl {
    /** What perftest's passive write/read/atomic side prints when its soaking peer ends. */
    static final String CLIENT_CLOSED = " Client closed connection\n";

    private RunControl() {
    }

    /**
     * --run_infinitely: runs the side's BW loop until SIGINT or the peer's stop, printing a row
     * per period; prints perftest's "User stopped traffic" when SIGINT ended it.
     *
     * @return the last period's row (the report the exchange after the run sends)
     */
    static BwReportData soak(Side side, long size, RunOutput output, PerftestChannel oob) throws IOException {
        PerftestSettings s = side.s;
        // perftest's run_inf_bi_factor: a -b write/read/atomic row counts both directions.
        int factor = s.bidirectional() && s.kind() != TestKind.SEND_BW ? 2 : 1;
        try (Soak soak = new Soak(size, s.durationSeconds(), factor, s.reportGbits(), output::bandwidthRow,
                oob == null ? () -> false : oob::peerHasSent)) {
            Measurement.run(side, size, StopRule.soak(soak));
            if (soak.interrupted()) {
                output.line(Soak.STOPPED);
            }
            return soak.last();
        }
    }

    /**
     * --perform_warm_up (perftest's perform_warm_up, on its write, read and atomic BW tests):
     * before the measurement, tx-depth messages per QP posted and completed, unmeasured.
     */
    static void performWarmUp(Side side, long size) throws IOException {
        PerftestSettings s = side.s;
        TestKind k = s.kind();
        if (!s.run().performWarmUp() || !(k == TestKind.WRITE_BW || k == TestKind.READ_BW || k == TestKind.ATOMIC_BW)) {
            return;
        }
        BandwidthLoops.client(side, size, StopRule.count(s.txDepth(), false));
    }

    /** --cpu_util without -D: perftest's warning; the option is then ignored, as there. */
    static void warnCpuUtil(PerftestSettings s, Console console) {
        if (s.reports().cpuUtil() && s.durationSeconds() == 0) {
            console.error("CPU Utilization works only with Duration mode.");
        }
    }

    /**
     * --wait_destroy: waits before the test's QPs, CQs, MRs and PD are destroyed, with perftest's
     * line (on stdout, in the text report only).
     */
    static void waitDestroy(PerftestSettings s, RunOutput output) {
        int seconds = s.run().waitDestroySeconds();
        if (seconds <= 0) {
            return;
        }
        output.line(" Waiting " + seconds + " seconds before releasing resources...\n");
        try {
            Thread.sleep(seconds * 1000L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
