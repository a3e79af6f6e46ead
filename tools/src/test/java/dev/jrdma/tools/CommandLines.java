// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.perftest.PerftestSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * What the option tests share: a run of jrdma in this JVM with its output captured, and the
 * settings a test's command line resolves to, parsed without running anything.
 */
final class CommandLines {
    record Result(int code, String out, String err) {
    }

    private CommandLines() {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Jrdma.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }

    /**
     * Runs {@code args} and asserts a usage error: exit code 2 and one line on stderr that
     * contains {@code expected}; returns the run for further checks.
     */
    static Result usageError(String expected, String... args) {
        Result r = run(args);
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(expected), () -> "'" + r.err() + "' should contain '" + expected + "'");
        assertEquals(1, r.err().strip().lines().count(), () -> "one line: " + r.err());
        return r;
    }

    static PerftestSettings settings(String... args) {
        CommandLine cl = Jrdma.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        CommandLine sub = cl.parseArgs(args).subcommand().commandSpec().commandLine();
        return ((PerftestCommands.TestCommand) sub.getCommand()).settings();
    }
}
