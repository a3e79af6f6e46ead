// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.exclusive;
import static dev.jrdma.tools.UsageErrors.optional;
import static dev.jrdma.tools.UsageErrors.usage;

import dev.jrdma.tools.perftest.RunSettings;
import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.perftest.Verb;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * perftest's run-control options (picocli mixins with perftest's names), per the tests
 * perftest's usage() offers them on: {@link RunOptions} on every test, {@link Latency} on the
 * latency tests, {@link Bandwidth} on the BW tests; {@link #resolve} turns them into
 * {@link RunSettings}.
 */
final class RunOptions {
    @Option(names = "--perform_warm_up",
            description = "Before the measurement, post tx-depth messages per QP and wait for them, unmeasured, "
                    + "as perftest (its write, read and atomic BW tests; ignored by the others, as there).")
    boolean performWarmUp;

    /** --latency_gap: the latency tests. */
    static final class Latency {
        @Option(names = "--latency_gap", paramLabel = "USEC",
                description = "Wait this many microseconds before each post; as in perftest the wait is part of "
                        + "the measured interval.")
        Integer latencyGap;
    }

    /** --run_infinitely, -w, -y, --wait_destroy, --reversed: the BW tests. */
    static final class Bandwidth {
        @Option(names = "--run_infinitely",
                description = "Run until stopped by SIGINT (Ctrl-C), printing a row for every -D seconds (default "
                        + "5) as each period ends; the stopped side prints perftest's 'User stopped traffic', ends "
                        + "the exchange and exits 0, and a passive server then prints 'Client closed connection'. "
                        + "No peak; excludes -e, -a and send-bw -b, as in perftest (give it to both sides).")
        boolean runInfinitely;

        @Option(names = {"-w", "--limit_bw"}, paramLabel = "BW",
                description = "Verifier: fail (exit 1, 'Error: BW result is below bw limit') when the BW average "
                        + "is below BW, in the report's unit (MB/s, or Gb/s with --report_gbits).")
        Double limitBw;

        @Option(names = {"-y", "--limit_msgrate"}, paramLabel = "MPPS",
                description = "Verifier: fail (exit 1, 'Error: Msg rate  is below msg_rate limit') when the message "
                        + "rate is below MPPS. perftest checks it only when -w is given too (its exit test reads "
                        + "-w's flag); jrdma checks it on its own.")
        Double limitMsgRate;

        @Option(names = "--wait_destroy", paramLabel = "SECONDS",
                description = "Wait this long after the test before destroying its QPs, CQs, MRs and PD.")
        Integer waitDestroy;

        @Option(names = "--reversed",
                description = "Reverse the traffic: the server (no host argument) sends and the client receives; "
                        + "the out-of-band exchange keeps its roles (give it to both sides).")
        boolean reversed;
    }

    /**
     * The run-control settings of a command line.
     *
     * @param latency the latency tests' mixin, or null on a BW test
     * @param bw      the BW tests' mixin, or null on a latency test
     * @throws ParameterException naming the option on invalid input
     */
    static RunSettings resolve(CommandSpec spec, TestKind kind, RunOptions all, Latency latency, Bandwidth bw,
                               boolean all_sizes, boolean events, boolean bidirectional, boolean rdmaCm) {
        int gap = 0;
        if (latency != null && latency.latencyGap != null) {
            if (latency.latencyGap < 0) {
                throw usage(spec, "option '--latency_gap': must be 0 or more microseconds, got " + latency.latencyGap);
            }
            gap = latency.latencyGap;
        }
        if (bw == null) {
            return new RunSettings(false, -1, -1, gap, all.performWarmUp, 0, false);
        }
        if (bw.runInfinitely) {
            // perftest's force_dependecies: no events, no SEND -b; -a is a different test method.
            if (events) {
                throw exclusive(spec, "'--run_infinitely'", "'--events' (-e)");
            }
            if (all_sizes) {
                throw exclusive(spec, "'--run_infinitely'", "'--all' (-a)");
            }
            if (bidirectional && kind.verb() == Verb.SEND) {
                throw usage(spec, "option '--run_infinitely': not with -b on send-bw (as in perftest)");
            }
        }
        if (bw.limitBw != null && !(bw.limitBw >= 0)) {
            throw usage(spec, "option '--limit_bw' (-w): must be 0 or more, got " + bw.limitBw);
        }
        if (bw.limitMsgRate != null && !(bw.limitMsgRate >= 0)) {
            throw usage(spec, "option '--limit_msgrate' (-y): must be 0 or more, got " + bw.limitMsgRate);
        }
        int waitDestroy = optional(spec, "'--wait_destroy'", bw.waitDestroy, 0, 86_400, 0);
        if (bw.reversed && rdmaCm) {
            // perftest swaps its machine role, and with -R the rdma_cm client would be the side
            // without an address to connect to.
            throw exclusive(spec, "'--reversed'", "'--rdma_cm' (-R)");
        }
        return new RunSettings(bw.runInfinitely, bw.limitBw == null ? -1 : bw.limitBw,
                bw.limitMsgRate == null ? -1 : bw.limitMsgRate, gap, all.performWarmUp, waitDestroy, bw.reversed);
    }
}
