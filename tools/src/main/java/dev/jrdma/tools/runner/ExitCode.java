// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

/**
 * The exit codes of every {@code jrdma} command, apart from the top-level command so that the
 * commands and the runner do not depend on it.
 */
public final class ExitCode {
    /** The run succeeded. */
    public static final int OK = 0;
    /** The run failed: device, peer or timeout. */
    public static final int FAILURE = 1;
    /** A usage error: a bad option or argument. */
    public static final int USAGE = 2;

    private ExitCode() {
    }
}
