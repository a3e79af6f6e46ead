// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.PostSettings;

/**
 * How many completions a BW loop polls per call: --cqe_poll (perftest's CTX_POLL_BATCH, 16, by
 * default), or perftest 26.04's dynamic polling (poll_cq_adaptive): it starts at 1024; a poll
 * that reads under 85% of the size shrinks it halfway towards what arrived, down to 16 (a full
 * poll's growth step, halfway between the size and what arrived, leaves it as it is, in
 * perftest too), and once ten polls in a row read the same number the size stays. It adapts for the first completions of a run only - a quarter of -n, or with -D
 * max(3 x QPs, 1000) - and keeps the size it reached. Counted here in completions polled,
 * where perftest counts the messages they stand for (cq-mod per send completion).
 */
final class PollSize {
    private static final int STABILIZE = 10;
    private static final double THRESHOLD = 0.85;
    /** perftest's MAX_QP_NUM, the bound of the adaptation's length in count mode. */
    private static final long MAX_QP_NUM = 16_384;

    private boolean dynamic;
    private final long adaptFor;
    private int size;
    private int stable;
    private int lastNe;
    private long polled;

    PollSize(PostSettings p, long iters, boolean durationRun, int qps) {
        this.dynamic = p.dynamicPolling();
        this.size = p.initialPollSize();
        this.adaptFor = durationRun ? Math.max(qps * 3L, 1000) : Math.min(iters / 4, MAX_QP_NUM);
    }

    /** The completions to ask for in the next poll. */
    int size() {
        return size;
    }

    /** Whether the size still adapts. */
    boolean adapting() {
        return dynamic;
    }

    /** Takes the result of a poll of {@link #size()}. */
    void polled(int ne) {
        if (!dynamic) {
            return;
        }
        if (polled >= adaptFor) {
            dynamic = false;
            return;
        }
        polled += ne;
        if (ne == size && size < PostSettings.DYNAMIC_MAX) {
            size = Math.min((size + ne) / 2, PostSettings.DYNAMIC_MAX);
            stable = 0;
        } else if (ne < size * THRESHOLD) {
            if (size > PostSettings.DYNAMIC_MIN) {
                size = Math.max((size + ne) / 2, PostSettings.DYNAMIC_MIN);
                stable = 0;
            }
        } else if (ne == lastNe) {
            if (++stable >= STABILIZE) {
                dynamic = false;
            }
        } else {
            stable = 0;
        }
        lastNe = ne;
    }
}
