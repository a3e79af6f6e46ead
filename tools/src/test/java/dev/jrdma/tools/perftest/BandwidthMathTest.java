// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class BandwidthMathTest {
    private static final double EPS = 1e-6;
    private static final long[] POSTED = {0, 1_000, 2_000, 3_000};

    @Test
    void averagePeakAndRateWithoutModeration() {
        long[] completed = {10_000, 11_000, 12_000, 20_000};
        BwReportData r = BandwidthMath.report(65_536, 4, POSTED, completed, 1, 1, false, false);
        // 4 x 64 KiB = 0.25 MiB in 20 us -> 12500 MB/s; 4 messages in 20 us -> 0.2 Mpps
        assertEquals(12_500.0, r.bwAvg(), EPS);
        assertEquals(0.2, r.msgRate(), EPS);
        // best window: posted[0]..completed[2] = 12 us for 3 messages = 4 us each -> 1/16 MiB / 4 us
        assertEquals(15_625.0, r.bwPeak(), EPS);
        assertEquals(65_536, r.size());
        assertEquals(4, r.iters());
    }

    @Test
    void gigabitsAreTenToTheNinthBits() {
        long[] completed = {10_000, 11_000, 12_000, 20_000};
        BwReportData r = BandwidthMath.report(65_536, 4, POSTED, completed, 1, 1, false, true);
        // 262144 bytes in 20 us = 13.1072e9 B/s = 104.8576 Gb/s; peak 65536 B / 4 us = 131.072 Gb/s
        assertEquals(104.8576, r.bwAvg(), EPS);
        assertEquals(131.072, r.bwPeak(), EPS);
        assertEquals(0.2, r.msgRate(), EPS);
    }

    @Test
    void moderatedCompletionsOnlyCountRecordedWindows() {
        // cq_mod 2: completions recorded at messages 1 and 3 only (perftest leaves the rest 0)
        long[] completed = {0, 11_000, 0, 20_000};
        BwReportData r = BandwidthMath.report(65_536, 4, POSTED, completed, 2, 1, false, false);
        // windows: (0,1) 11/2, (0,3) 20/4 = 5 us, (1,1) 10, (1,3) 19/3, (2,3) 18/2, (3,3) 17 -> 5 us
        assertEquals(12_500.0, r.bwPeak(), EPS);
        assertEquals(12_500.0, r.bwAvg(), EPS);
    }

    @Test
    void lastMessageCountsWhenIterationsAreNotAMultipleOfTheModeration() {
        long[] posted = {0, 1_000, 2_000};
        long[] completed = {0, 4_000, 6_000};   // cq_mod 2, 3 messages: slots 1 and 2 recorded
        BwReportData r = BandwidthMath.report(1_048_576, 3, posted, completed, 2, 1, false, false);
        // i=0: (0,1) 4/2, extra (0,2) 6/3; i=1: (1,1) 3, extra (1,2) 5/2; i=2: extra (2,2) 4 -> 2 us
        assertEquals(1 / 2e-6, r.bwPeak(), EPS);
        assertEquals(3 / 6e-6 / 1e6, r.msgRate(), EPS);
    }

    @Test
    void unrecordedSlotsNeverWin() {
        long[] posted = {5_000, 6_000, 7_000, 8_000};
        long[] completed = {0, 20_000, 0, 30_000};
        BwReportData r = BandwidthMath.report(1_048_576, 4, posted, completed, 2, 1, false, false);
        // (0,1) 15/2 = 7.5, (0,3) 25/4 = 6.25, (1,1) 14, (1,3) 24/3, (2,3) 23/2, (3,3) 22 -> 6.25 us
        assertEquals(1 / 6.25e-6, r.bwPeak(), 1e-3);
    }

    @Test
    void noPeakUsesTheFirstCompletionSlot() {
        long[] completed = {20_000};
        BwReportData r = BandwidthMath.report(65_536, 4, POSTED, completed, 100, 1, true, false);
        assertEquals(0.0, r.bwPeak());
        assertEquals(12_500.0, r.bwAvg(), EPS);
    }

    @Test
    void postListStepsTheWindowStarts() {
        long[] posted = {0, 0, 4_000, 4_000};
        long[] completed = {5_000, 6_000, 9_000, 10_000};
        BwReportData r = BandwidthMath.report(1024, 4, posted, completed, 1, 2, false, false);
        // starts at 0 and 2 only: (0,0) 5, (0,1) 3, (0,2) 3, (0,3) 2.5, (2,2) 5, (2,3) 3 -> 2.5 us
        assertEquals(1024 / 2.5e-6 / 1048576, r.bwPeak(), EPS);
    }

    @Test
    void bidirectionalSumIsFieldByField() {
        BwReportData a = new BwReportData(65536, 1000, 10, 8, 0.1);
        BwReportData b = new BwReportData(65536, 1000, 12, 9, 0.2);
        BwReportData sum = a.plus(b);
        assertEquals(22, sum.bwPeak(), EPS);
        assertEquals(17, sum.bwAvg(), EPS);
        assertEquals(0.3, sum.msgRate(), EPS);
        assertEquals(1000, sum.iters());
    }
}
