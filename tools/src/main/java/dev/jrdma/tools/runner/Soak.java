// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.tools.perftest.BandwidthMath;
import dev.jrdma.tools.perftest.BwReportData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;

/**
 * --run_infinitely, perftest's soak mode: a BW loop that runs until it is stopped and reports
 * every period (-D, default 5 s) the messages completed in it over its length, as perftest's
 * print thread does (run_iter_bw_infinitely, print_bw_infinite_mode: no peak, the count since
 * the last report). SIGINT stops it: while the run lasts, the signal sets a flag instead of
 * ending the JVM, the loop sees it at its next completion check and ends, and the run goes on to
 * the end of the exchange and the closing line, as perftest's write/read/atomic client does
 * ("User stopped traffic"). A side whose peer was stopped sees the peer's next exchange message
 * arrive (checked at each period's end) and ends too.
 *
 * <p>The loop calls {@link #completed} after every poll: a comparison and a volatile read; the
 * report is built and printed once per period, on the loop's thread (perftest prints from a
 * second thread while the loop runs).
 */
final class Soak implements AutoCloseable {
    /** The line perftest prints when SIGINT stops the loop. */
    static final String STOPPED = "\n User stopped traffic\n";

    /** What the loop needs from the session besides the signal. */
    interface Peer {
        /** Whether the peer stopped: its next exchange message has arrived. */
        boolean stopped() throws IOException;
    }

    private final long size;
    private final long periodNanos;
    private final int factor;
    private final boolean gbits;
    private final Consumer<BwReportData> reports;
    private final Peer peer;
    private final SigInt sigint;
    private volatile boolean interrupted;
    private boolean peerStopped;
    private long periodStart;
    private long periodEnd;
    private long counted;
    private BwReportData last;

    /**
     * Starts catching SIGINT.
     *
     * @param size    the message size
     * @param seconds the period
     * @param factor  perftest's run_inf_bi_factor: 2 for a -b write/read/atomic run (its rows count
     *                both directions), else 1
     * @param reports takes each period's row
     */
    Soak(long size, int seconds, int factor, boolean gbits, Consumer<BwReportData> reports, Peer peer) {
        this.size = size;
        this.periodNanos = seconds * 1_000_000_000L;
        this.factor = factor;
        this.gbits = gbits;
        this.reports = reports;
        this.peer = peer;
        this.sigint = SigInt.catching(this::stop);
    }

    /** Stops the loop at its next check, as SIGINT does. */
    void stop() {
        interrupted = true;
    }

    /** Whether SIGINT (or {@link #stop}) ended the run, rather than the peer's stop. */
    boolean interrupted() {
        return interrupted;
    }

    /**
     * After a poll: {@code n} messages completed at {@code now}. Starts the first period, reports
     * each one that is over; false once the run is to stop.
     */
    boolean completed(long now, long n) {
        if (periodEnd == 0) {
            periodStart = now;
            periodEnd = now + periodNanos;
        }
        counted += n;
        if (now - periodEnd >= 0) {
            report(now);
        }
        return !interrupted && !peerStopped;
    }

    private void report(long now) {
        BwReportData r = BandwidthMath.report(size, Math.max(1, counted), new long[] {periodStart}, new long[] {now},
                1, 1, true, gbits);
        last = counted == 0 ? new BwReportData(size, 0, 0, 0, 0)
                : new BwReportData(size, counted, 0, r.bwAvg() * factor, r.msgRate() * factor);
        reports.accept(last);
        periodStart = now;
        periodEnd = now + periodNanos;
        counted = 0;
        try {
            peerStopped = peer.stopped();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last period's row (all zero before the first), for the report exchange after the run. */
    BwReportData last() {
        return last != null ? last : new BwReportData(size, 0, 0, 0, 0);
    }

    /** Gives SIGINT back its previous handler (the JVM's: end the process). */
    @Override
    public void close() {
        sigint.close();
    }
}
