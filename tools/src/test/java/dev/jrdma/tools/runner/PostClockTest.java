// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The post clock: its stamps, and their conversion to nanoseconds after a loop. */
class PostClockTest {
    @Test
    void stampsMapLinearlyOntoNanoTimeBetweenTheMarks() {
        // 3 ticks a nanosecond, the run from tick 3,000 (nanoTime 1,000,000) to tick 33,000 (1,010,000).
        long[] stamps = {3_000, 3_300, 0, 18_000, 33_000};
        PostClock.convert(stamps, new PostClock.Mark(3_000, 1_000_000), new PostClock.Mark(33_000, 1_010_000));
        assertArrayEquals(new long[] {1_000_000, 1_000_100, 0, 1_005_000, 1_010_000}, stamps,
                "each stamp on nanoTime's scale; an unrecorded slot (0) stays 0");
    }

    @Test
    void aRunWithoutTicksMapsEveryStampToItsStart() {
        long[] stamps = {500, 500};
        PostClock.convert(stamps, new PostClock.Mark(500, 7), new PostClock.Mark(500, 9));
        assertArrayEquals(new long[] {7, 7}, stamps);
    }

    @Test
    void stampsAdvanceAndConvertBackToTheMarksOnThisMachine() throws Exception {
        PostClock.Mark start = PostClock.Mark.now();
        long[] stamps = new long[1000];
        for (int i = 0; i < stamps.length; i++) {
            stamps[i] = PostClock.now();
        }
        Thread.sleep(2);
        PostClock.Mark end = PostClock.Mark.now();
        for (int i = 1; i < stamps.length; i++) {
            assertTrue(stamps[i] >= stamps[i - 1], "stamp " + i + " went back: " + PostClock.counter());
        }
        long[] marks = {start.stamp(), end.stamp()};
        PostClock.convert(marks, start, end);
        assertEquals(start.nanos(), marks[0]);
        assertEquals(end.nanos(), marks[1]);
        PostClock.toNanos(stamps, start, end);
        assertTrue(stamps[0] >= start.nanos() && stamps[stamps.length - 1] <= end.nanos(),
                "converted stamps lie between the marks: " + PostClock.counter());
    }

    @Test
    void theCounterIsUsedWhereTheKernelKeepsItsClockOnIt() throws Exception {
        Path source = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        String arch = System.getProperty("os.arch");
        boolean expected = Files.isReadable(source) && Files.readString(source).strip().equals("tsc")
                && (arch.equals("amd64") || arch.equals("x86_64"));
        if (expected) {
            // A W^X policy or a sandbox's PR_TSC_SIGSEGV may still refuse it, and says so.
            String c = PostClock.counter();
            assertTrue(PostClock.ticks() || c.contains("refused") || c.contains("PR_GET_TSC"), c);
        } else {
            assertFalse(PostClock.ticks(), PostClock.counter());
        }
    }
}
