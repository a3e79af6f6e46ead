// SPDX-License-Identifier: Apache-2.0
/**
 * The device-independent core of jrdma's perftest-compatible tests: perftest 6.06's
 * out-of-band TCP protocol, its report math and its output, checked against captures of
 * Debian's perftest (src/test/resources/dev/jrdma/tools/perftest/golden).
 *
 * <h2>Pieces</h2>
 * <ul>
 * <li>{@link dev.jrdma.tools.perftest.PerftestChannel}: the lock-step TCP exchange with a timeout
 *     on connect, accept and every read and write; {@link dev.jrdma.tools.perftest.PeerInfo} is the
 *     per-QP key message, {@link dev.jrdma.tools.perftest.PerftestVersion} the version message,
 *     {@link dev.jrdma.tools.perftest.BwReportData} the BW report. Malformed or truncated input
 *     from the peer is always a {@link dev.jrdma.tools.perftest.PerftestProtocolException} naming
 *     the step and field; a wait past its timeout a {@link dev.jrdma.RdmaTimeoutException}
 *     naming the step and the timeout.</li>
 * <li>{@link dev.jrdma.tools.perftest.PerftestSchedule} and
 *     {@link dev.jrdma.tools.perftest.PerftestSession}: the exact order of key exchanges, syncs and
 *     reports each perftest binary uses; the device part implements
 *     {@link dev.jrdma.tools.perftest.PerftestSession.Device}.</li>
 * <li>{@link dev.jrdma.tools.perftest.LatencyReport} and
 *     {@link dev.jrdma.tools.perftest.BandwidthMath}: perftest's definitions with nanoTime inputs.</li>
 * <li>{@link dev.jrdma.tools.perftest.PerftestFormat}: perftest's text, tabs included;
 *     {@link dev.jrdma.tools.perftest.JsonReport} and {@link dev.jrdma.tools.perftest.CsvReport}: one
 *     document per run; {@link dev.jrdma.tools.perftest.DurationLatency}: the -D latency row.</li>
 * <li>{@link dev.jrdma.tools.perftest.HistogramFile} (--histogram, HdrHistogram's percentile
 *     distribution) and {@link dev.jrdma.tools.perftest.ResultPlot} (--plot, XChart PNG/SVG);
 *     {@link dev.jrdma.tools.perftest.ProgressLine}: the -D progress line on a terminal's stderr.</li>
 * </ul>
 *
 * <h2>perftest facts worth knowing (6.06, verified in its sources and captures)</h2>
 * <ul>
 * <li>The key message without GID is {@code LID:OUT:QPN:PSN:RKEY:VADDR:SRQN} + NUL (59 bytes, no
 *     ':' after SRQN); with GID it ends {@code ...:G15:SRQN:} + NUL (108 bytes). Which one is read
 *     is decided by the reader's own -x setting, so both sides must agree.</li>
 * <li>System data is two separate 4-byte exchanges, the BW report five separate 8-byte ones:
 *     never batch them, a perftest peer answers field by field.</li>
 * <li>After the final sync both sides write "done\0" (5 bytes) that nobody reads. write_lat skips
 *     the final sync and "done" altogether.</li>
 * <li>The passive server's BW report record is uninitialised memory; the client ignores it.</li>
 * <li>t_max is the second largest delta (sorted[n-3]), not the largest kept one; 99.9% often equals
 *     it. perftest truncates deviations to whole microseconds in t_stdev; jrdma does not.</li>
 * <li>The address line prints LID 0 as "0000" (C's %#04x), GID bytes in decimal.</li>
 * <li>perftest's -a sweep exchanges one BW report after all sizes (write/read/atomic BW), so the
 *     server prints only the last size.</li>
 * <li>-b: both sides run, reports are exchanged after every size (send_bw: not in duration runs)
 *     and each side prints the sum of both records. -D: the same exchanges as an iteration run.
 *     UD: the RC order; -a stops at the MTU and a default size above it is lowered to it.</li>
 * <li>-R moves the whole exchange, preamble included, onto an rdma_cm-connected RC control QP:
 *     keys travel as the binary 56-byte struct, two all-zero syncs frame the rdma_cm connection
 *     of the test QPs, and no "done" follows the final sync.</li>
 * </ul>
 */
package dev.jrdma.tools.perftest;
