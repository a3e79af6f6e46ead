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
        write("--histogram", settings.histogram(), HistogramFile::write, report, written);
        write("--plot", settings.plot(), ResultPlot::write, report, written);
        write("--out_json_file", settings.reports().outJsonFile(), ReportFiles::json, report, written);
        return List.copyOf(written);
    }

    /** --out_json: the --json document, replacing the file as perftest's open(O_TRUNC) does. */
    static void json(RunReport report, Path file) throws IOException {
        try (java.io.Writer out = java.nio.file.Files.newBufferedWriter(file)) {
            JsonReport.write(report, out);
        }
    }

    /** How one kind of file is written from a report. */
    private interface Writer {
        void write(RunReport report, Path file) throws IOException;
    }

    private static void write(String option, Path file, Writer writer, RunReport report, List<Path> written)
            throws IOException {
        if (file == null) {
            return;   // not asked for
        }
        try {
            writer.write(report, file);
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException(option + " " + file + ": " + e.getMessage(), e);
        }
        written.add(file);
    }
}
