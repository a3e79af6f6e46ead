// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.runner.Console;
import picocli.CommandLine.Model.CommandSpec;

/** The console of a picocli command: its name as typed, and the writers the command line was given. */
final class CommandConsole {
    private CommandConsole() {
    }

    static Console of(CommandSpec spec) {
        return new Console(spec.qualifiedName(), spec.commandLine().getOut(), spec.commandLine().getErr());
    }
}
