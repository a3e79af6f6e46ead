// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * One side's bandwidth result as perftest exchanges it after a BW run ({@code struct
 * bw_report_data}, sent by {@code xchg_bw_reports}). The passive server of write/read/atomic BW
 * prints the client's record; bidirectional runs print the sum of both.
 *
 * @param size    message size in bytes
 * @param iters   iterations counted in the report (iters x QPs)
 * @param bwPeak  peak bandwidth in the report unit (MB/s with MB = 2^20 bytes, or Gb/s)
 * @param bwAvg   average bandwidth in the same unit
 * @param msgRate average message rate in Mpps
 */
public record BwReportData(long size, long iters, double bwPeak, double bwAvg, double msgRate)
        implements ResultRow {

    /** Field by field sum, as perftest's {@code print_full_bw_report} adds the remote record. */
    public BwReportData plus(BwReportData other) {
        return new BwReportData(size, iters, bwPeak + other.bwPeak, bwAvg + other.bwAvg, msgRate + other.msgRate);
    }
}
