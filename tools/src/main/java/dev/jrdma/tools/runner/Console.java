// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import java.io.PrintWriter;

/**
 * Where a command writes: its report to {@code out}, its one-line errors to {@code err}, each
 * error prefixed with the command's name as the user typed it ({@code jrdma send-lat}). The
 * command line builds it from picocli's spec, so that nothing below the command depends on
 * picocli; tests build it over string writers.
 */
public record Console(String command, PrintWriter out, PrintWriter err) {

    /** Prints {@code command: message} on stderr. */
    public void error(String message) {
        err.println(command + ": " + message);
        err.flush();
    }
}
