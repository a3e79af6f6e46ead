// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code --histogram FILE}: HdrHistogram's percentile distribution of each size's kept latency
 * samples (the same samples perftest's table is computed from), values in microseconds. The
 * text is HdrHistogram's own {@code outputPercentileDistribution} format, so its plotting tools
 * read it; each size is preceded by one {@code #[...]} line naming the test, size and iterations.
 */
public final class HistogramFile {
    /** Percentile ticks per half-distance of HdrHistogram's output (its usual 5). */
    static final int TICKS_PER_HALF_DISTANCE = 5;
    /** Samples are recorded in nanoseconds; the file is in microseconds. */
    static final double NANOS_PER_MICRO = 1000.0;

    private HistogramFile() {
    }

    /** Writes the distribution of every latency row to {@code file}. */
    public static void write(RunReport report, Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            write(report, out);
        }
    }

    /**
     * Writes the distribution of every latency row.
     *
     * @throws IllegalArgumentException for a BW report or rows without samples
     */
    public static void write(RunReport report, OutputStream out) throws IOException {
        if (report.latency().isEmpty()) {
            throw new IllegalArgumentException("no latency rows: only latency tests have a latency distribution");
        }
        PrintStream ps = new PrintStream(out, false, StandardCharsets.US_ASCII);
        for (LatencyReport row : report.latency()) {
            if (row.samplesUs().length == 0) {
                throw new IllegalArgumentException("latency row for " + row.size() + " bytes has no samples");
            }
            ps.printf("#[%s %s: %d bytes, %d iterations, %d samples kept, latency in usec]%n", "jrdma", report.test(),
                    row.size(), row.iters(), row.samplesUs().length);
            row.histogram().outputPercentileDistribution(ps, TICKS_PER_HALF_DISTANCE, NANOS_PER_MICRO);
        }
        ps.flush();
        if (ps.checkError()) {
            throw new IOException("writing the histogram failed");
        }
    }
}
