// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * What one idle step of a wait costs (issue #38): an empty poll of a stub-provider CQ and the
 * strategy's step after it, as {@link CompletionQueue#poll(WorkCompletion, Duration, WaitStrategy)}
 * loops them. {@code pollOnly} is the empty poll alone; the difference is the strategy. The
 * backoff's spin phase is what a wait costs in its first polls; its yield phase costs what
 * {@code yielding} does. {@code pollZeroTimeout} is a whole wait that finds nothing with a zero
 * timeout: the wait's own prologue. Run with {@code -jvmArgsAppend -Djmh.executor=VIRTUAL_TPE}
 * to measure on virtual threads. Run by {@code bench/stub-provider}; figures in bench/README.md.
 */
public class WaitStrategyBench extends StubBenchSettings {
    private static final WaitStrategy BUSY_POLL = WaitStrategy.busyPoll();
    private static final WaitStrategy BUSY_SPIN = WaitStrategy.busySpin();
    private static final WaitStrategy YIELDING = WaitStrategy.yielding();
    private static final WaitStrategy BACKOFF = WaitStrategy.backoff();
    private static final WaitStrategy THREAD_AWARE = WaitStrategy.threadAware();

    private CompletionQueue cq;
    private WorkCompletion wc;

    /** For JMH, which instantiates the state. */
    public WaitStrategyBench() {}

    @Setup
    public void setUp() {
        cq = StubProvider.open(16, 64).sendCq();
        wc = new WorkCompletion();
    }

    @Benchmark
    public int pollOnly() {
        return cq.poll(wc);
    }

    /** The CLI's measurement loops' step: nothing; should equal {@code pollOnly}. */
    @Benchmark
    public int busyPoll() {
        int n = cq.poll(wc);
        BUSY_POLL.idle(1);
        return n;
    }

    @Benchmark
    public int busySpin() {
        int n = cq.poll(wc);
        BUSY_SPIN.idle(1);
        return n;
    }

    /** The default: busy spin on a platform thread, the backoff's first step on a virtual one. */
    @Benchmark
    public int threadAware() {
        int n = cq.poll(wc);
        THREAD_AWARE.idle(1);
        return n;
    }

    @Benchmark
    public int backoffSpinPhase() {
        int n = cq.poll(wc);
        BACKOFF.idle(1);
        return n;
    }

    @Benchmark
    public int yielding() {
        int n = cq.poll(wc);
        YIELDING.idle(1);
        return n;
    }

    @Benchmark
    public boolean pollZeroTimeout() {
        return cq.poll(wc, Duration.ZERO);
    }
}
