// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
    @Test
    void shownOnlyForDurationRunsOnATerminal() {
        assertTrue(ProgressLine.enabled(10, true));
        assertFalse(ProgressLine.enabled(10, false));
        assertFalse(ProgressLine.enabled(0, true));
        assertFalse(ProgressLine.enabled(0, false));
    }

    @Test
    void format() {
        assertEquals("send-bw: 3.2/10 s, 1234567 iterations", ProgressLine.format("send-bw", 3_249_000_000L, 10, 1234567));
        assertEquals("write-lat: 0.0/5 s, 0 iterations", ProgressLine.format("write-lat", -5, 5, 0));
        // The run's last poll may land after the deadline: never print more than the duration.
        assertEquals("read-bw: 5.0/5 s, 9 iterations", ProgressLine.format("read-bw", 5_400_000_000L, 5, 9));
    }

    @Test
    void redrawsInPlaceAtMostFourTimesASecondAndErasesItself() {
        StringWriter sw = new StringWriter();
        ProgressLine p = new ProgressLine(new PrintWriter(sw), "send-bw", 10);
        long t0 = 1_000_000_000L;
        assertTrue(p.update(t0, 0, 0));
        assertFalse(p.update(t0 + 100_000_000L, 100_000_000L, 50));
        assertTrue(p.update(t0 + 250_000_000L, 250_000_000L, 1234567));
        assertTrue(p.update(t0 + 500_000_000L, 500_000_000L, 7));
        p.finish();
        String expected = "\rsend-bw: 0.0/10 s, 0 iterations"
                + "\rsend-bw: 0.3/10 s, 1234567 iterations"
                + "\rsend-bw: 0.5/10 s, 7 iterations      "   // padded over the longer previous text
                + "\r" + " ".repeat("send-bw: 0.5/10 s, 7 iterations".length()) + "\r";
        assertEquals(expected, sw.toString());
        assertFalse(sw.toString().contains("\n"), "never a newline: the line is rewritten");
    }

    @Test
    void finishWithoutAnUpdatePrintsNothing() {
        StringWriter sw = new StringWriter();
        new ProgressLine(new PrintWriter(sw), "send-bw", 10).finish();
        assertEquals("", sw.toString());
    }

    @Test
    void surefireStderrIsNotATerminal() {
        // Maven runs the tests with stderr redirected to a pipe or file.
        assertFalse(ProgressLine.stderrIsTerminal());
    }
}
