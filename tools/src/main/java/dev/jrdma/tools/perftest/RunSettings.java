// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Run control: --run_infinitely, -w, -y, --latency_gap, --perform_warm_up, --wait_destroy,
 * --reversed, with perftest's meanings (src/perftest_parameters.c, perftest_resources.c).
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixins by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 *
 * @param runInfinitely     --run_infinitely (BW tests): run until stopped (SIGINT), printing a row
 *                          for every -D period (default 5 s) as it ends
 * @param limitBw           -w (BW tests): the verifier's minimum BW average in the report's unit;
 *                          a run below it fails (exit 1); negative for none
 * @param limitMsgRate      -y (BW tests): the verifier's minimum message rate in Mpps, as -w;
 *                          negative for none
 * @param latencyGapMicros  --latency_gap (latency tests): microseconds to wait before each post,
 *                          inside the measured interval as in perftest; 0 for none
 * @param performWarmUp     --perform_warm_up: before a write/read/atomic BW run, post and complete
 *                          tx-depth messages per QP on the wire, unmeasured
 * @param waitDestroySeconds --wait_destroy (BW tests): seconds to wait after the test before its
 *                          QPs, CQs, MRs and PD are destroyed; 0 for none
 * @param reversed          --reversed (BW tests): the side without a host argument sends and the
 *                          client receives; the out-of-band exchange keeps its roles
 */
public record RunSettings(boolean runInfinitely, double limitBw, double limitMsgRate, int latencyGapMicros,
                          boolean performWarmUp, int waitDestroySeconds, boolean reversed) {
    /** perftest's DEF_DURATION: the period of --run_infinitely without -D. */
    public static final int DEFAULT_PERIOD_SECONDS = 5;

    /** None of the group's options given. */
    public static final RunSettings DEFAULT = new RunSettings(false, -1, -1, 0, false, 0, false);

    /**
     * Whether the side runs perftest's client role in the test (the sender of a BW test):
     * the side with a host argument, or with --reversed the other one.
     */
    public boolean testClient(boolean hostGiven) {
        return hostGiven != reversed;
    }

    /** Whether -w or -y is set. */
    public boolean verifies() {
        return limitBw >= 0 || limitMsgRate >= 0;
    }

    /**
     * The group's parameters for --json/--csv (perftest's JSON has none of them): -w and -y as
     * given (null: not verified), the gap in microseconds, the wait in seconds.
     */
    public java.util.Map<String, Object> toParameters() {
        java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
        p.put("run_infinitely", runInfinitely);
        p.put("limit_bw", limitBw >= 0 ? limitBw : null);
        p.put("limit_msgrate", limitMsgRate >= 0 ? limitMsgRate : null);
        p.put("latency_gap_us", latencyGapMicros);
        p.put("perform_warm_up", performWarmUp);
        p.put("wait_destroy_s", waitDestroySeconds);
        p.put("reversed", reversed);
        return p;
    }
}
