// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.util.List;
import java.util.Map;

/**
 * Everything one run reports, for the machine-readable outputs ({@link JsonReport},
 * {@link CsvReport}): one document per run, every size of an -a sweep in {@code latency} or
 * {@code bandwidth}.
 *
 * @param test        the subcommand, e.g. "send-lat"
 * @param info        the header facts
 * @param parameters  test parameters in display order (name to String/Number/Boolean)
 * @param peerVersion the version string the peer announced
 * @param local       this side's QPs
 * @param remote      the peer's QPs
 * @param latency     latency rows (latency tests), else empty
 * @param bandwidth   bandwidth rows (BW tests), else empty
 * @param gbits       bandwidth unit Gb/s (else MB/s with MB = 2^20 bytes)
 * @param durationLatency the row of a -D latency run (perftest prints only t_avg and tps there),
 *                    else empty; {@code latency} may then hold the samples' full row as well
 * @param provenance  where the report came from (jrdma, Java, libibverbs, start time)
 */
public record RunReport(String test, TestInfo info, Map<String, Object> parameters, String peerVersion,
                        List<PeerInfo> local, List<PeerInfo> remote, List<LatencyReport> latency,
                        List<BwReportData> bandwidth, boolean gbits, List<DurationLatency> durationLatency,
                        Provenance provenance) {

    /** A run without -D latency rows, of this process, started now. */
    public RunReport(String test, TestInfo info, Map<String, Object> parameters, String peerVersion,
                     List<PeerInfo> local, List<PeerInfo> remote, List<LatencyReport> latency,
                     List<BwReportData> bandwidth, boolean gbits) {
        this(test, info, parameters, peerVersion, local, remote, latency, bandwidth, gbits, List.of());
    }

    /** A run of this process, started now. */
    public RunReport(String test, TestInfo info, Map<String, Object> parameters, String peerVersion,
                     List<PeerInfo> local, List<PeerInfo> remote, List<LatencyReport> latency,
                     List<BwReportData> bandwidth, boolean gbits, List<DurationLatency> durationLatency) {
        this(test, info, parameters, peerVersion, local, remote, latency, bandwidth, gbits, durationLatency,
                Provenance.of(java.time.Instant.now()));
    }

    public RunReport {
        java.util.Objects.requireNonNull(provenance, "provenance");
        durationLatency = List.copyOf(durationLatency);
        parameters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parameters));
        local = List.copyOf(local);
        remote = List.copyOf(remote);
        latency = List.copyOf(latency);
        bandwidth = List.copyOf(bandwidth);
    }
}
