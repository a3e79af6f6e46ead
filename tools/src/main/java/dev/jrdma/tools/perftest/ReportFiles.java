// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the files a run was asked for (--histogram, --plot) after its report is complete, so the
 * device part calls one method at the end of a run. A file that cannot be written fails the run
 * with a message naming the option and the file (exit code 1), after the table was printed.
 */
public final class ReportFiles {
    private ReportFiles() {
    }

    /**
     * @return the files written, in option order
     * @throws IOException naming the option and file when one cannot be written
     */
    public static List<Path> write(RunReport report, PerftestSettings settings) throws IOException {
        List<Path> written = new ArrayList<>();
        if (settings.histogram() != null) {
            try {
                HistogramFile.write(report, settings.histogram());
            } catch (IOException | IllegalArgumentException e) {
                throw new IOException("--histogram " + settings.histogram() + ": " + e.getMessage(), e);
            }
            written.add(settings.histogram());
        }
        if (settings.plot() != null) {
            try {
                ResultPlot.write(report, settings.plot());
            } catch (IOException | IllegalArgumentException e) {
                throw new IOException("--plot " + settings.plot() + ": " + e.getMessage(), e);
            }
            written.add(settings.plot());
        }
        return List.copyOf(written);
    }
}
