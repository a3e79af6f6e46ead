// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.perftest.TestKind;
import dev.jrdma.tools.runner.ExitCode;
import java.io.PrintWriter;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code jrdma} command: perftest-compatible tests and device tools.
 *
 * <p>Exit codes: 0 success, 1 failure (device, peer, timeout), 2 usage error. Errors print one
 * line on stderr naming the command and, for usage errors, the option.
 */
@Command(name = "jrdma", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "RDMA verbs from Java: perftest-compatible tests and device tools.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:Success.",
            "1:Failure: the device, the peer or a timeout, or a result below --limit_bw/--limit_msgrate; one line on "
                + "stderr says which.",
            "2:Usage error: an unknown, malformed or refused option or argument; one line on stderr names it.",
        })
public final class Jrdma implements java.util.concurrent.Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("jrdma: missing command (try 'jrdma --help')");
        return ExitCode.USAGE;
    }

    /** The configured command line, writing to the given streams. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Jrdma());
        // The subcommands before the settings below, which apply to those added by then.
        for (TestKind kind : TestKind.values()) {
            cl.addSubcommand(PerftestCommands.of(kind));
        }
        cl.addSubcommand(new DeviceCommands.Devices());
        cl.addSubcommand(new DeviceCommands.DevInfo());
        cl.addSubcommand(new AutoComplete.GenerateCompletion());
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(false);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println(qualifiedName(c) + ": " + oneLine(ex.getMessage()) + suggestion(ex) + " (see '"
                    + qualifiedName(c) + " --help')");
            c.getErr().flush();
            return ExitCode.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> {
            c.getErr().println(qualifiedName(c) + ": " + oneLine(describe(ex)));
            c.getErr().flush();
            return ExitCode.FAILURE;
        });
        return cl;
    }

    /** Runs the command line and returns its exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = commandLine(out, err);
        int code;
        try {
            // getopt's unique prefixes of long options (--iter for --iters), as perftest accepts them.
            code = cl.execute(LongOptionPrefixes.expand(cl, args));
        } catch (CommandLine.ParameterException e) {
            try {
                code = cl.getParameterExceptionHandler().handleParseException(e, args);
            } catch (Exception unexpected) {
                throw new IllegalStateException(unexpected);
            }
        }
        out.flush();
        err.flush();
        return code;
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    private static String qualifiedName(CommandLine c) {
        return c.getCommandSpec().qualifiedName();
    }

    /**
     * picocli's "Did you mean ...?" for a mistyped command or option, in the one line: picocli
     * prints it only from its own handler (UnmatchedArgumentException.printSuggestions), which
     * this one replaces.
     */
    static String suggestion(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.getSuggestions().isEmpty()) {
            return "";
        }
        String prefix = u.isUnknownOption() ? "" : qualifiedName(u.getCommandLine()) + " ";
        return ". Did you mean: " + String.join(" or ", u.getSuggestions().stream().map(s -> prefix + s).toList())
                + "?";
    }

    private static String describe(Exception ex) {
        String m = ex.getMessage();
        return (m == null || m.isBlank()) ? ex.getClass().getSimpleName() : m;
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
