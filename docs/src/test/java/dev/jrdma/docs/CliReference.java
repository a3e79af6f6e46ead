// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static dev.jrdma.docs.MarkdownCells.cell;
import static dev.jrdma.docs.MarkdownCells.description;
import static dev.jrdma.docs.MarkdownCells.names;

import dev.jrdma.tools.Jrdma;
import dev.jrdma.tools.runner.ExitCode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Writes docs/guide/cli-reference.md from picocli's model of {@code jrdma}: every visible command
 * and subcommand with its synopsis, description, positional parameters, options (names, value,
 * default, description) and exit codes. The model is the one {@link Jrdma#commandLine} builds,
 * default providers included, so the page shows the defaults {@code --help} shows.
 *
 * <p>picocli-codegen's ManPageGenerator writes AsciiDoc man pages; the guide is Markdown checked
 * by GuideTest, so this walks the same model and writes Markdown tables instead.
 */
final class CliReference {
    static final String PAGE = "cli-reference.md";

    private CliReference() {}

    /** The page's full text. */
    static String generate() {
        CommandLine root = Jrdma.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        List<CommandLine> commands = new ArrayList<>();
        collect(root, commands);

        StringBuilder md = new StringBuilder();
        md.append("# CLI reference\n\n");
        md.append("<!-- Generated from the picocli model of dev.jrdma.tools.Jrdma by docs/src/test/java/dev/jrdma/docs/"
                + "CliReference.java. Do not edit: run scripts/docs-sync. -->\n\n");
        md.append("Every command and option of `jrdma` (`scripts/jrdma`, after `scripts/mvn -B -ntp -DskipTests package`), "
                + "generated from the command line's own definition, so it matches `jrdma COMMAND --help`. "
                + "Regenerate it with `scripts/docs-sync`; a host test fails when it is out of date. "
                + "[perftest mapping](perftest-mapping.md) lists the perftest command and flag each one "
                + "corresponds to.\n\n");
        md.append("| command | what it does |\n| --- | --- |\n");
        for (CommandLine c : commands) {
            CommandSpec spec = c.getCommandSpec();
            md.append("| [`").append(spec.qualifiedName()).append("`](#").append(GuideTest.slug(heading(spec)))
                    .append(") | ").append(cell(firstLine(spec))).append(" |\n");
        }
        for (CommandLine c : commands) {
            command(md, c);
        }
        exitCodes(md);
        return md.toString().replaceAll("\n{3,}", "\n\n");
    }

    private static void collect(CommandLine c, List<CommandLine> out) {
        out.add(c);
        for (CommandLine sub : c.getSubcommands().values()) {
            if (!sub.getCommandSpec().usageMessage().hidden() && !out.contains(sub)) {
                collect(sub, out);
            }
        }
    }

    /** The first line of a command's description: the summary the command table shows. */
    private static String firstLine(CommandSpec spec) {
        String[] description = spec.usageMessage().description();
        return description.length == 0 ? "" : description[0].lines().findFirst().orElse("").strip();
    }

    private static String heading(CommandSpec spec) {
        return "`" + spec.qualifiedName() + "`";
    }

    private static void command(StringBuilder md, CommandLine c) {
        CommandSpec spec = c.getCommandSpec();
        md.append("\n## ").append(heading(spec)).append("\n\n");
        for (String line : String.join("\n", spec.usageMessage().description()).split("\n", -1)) {
            // picocli indents example commands; Markdown shows 4-space-indented lines as code.
            md.append(line.isBlank() || !Character.isWhitespace(line.charAt(0)) ? line.stripTrailing()
                    : "    " + line.strip()).append('\n');
        }
        md.append('\n');
        Help help = new Help(spec, Help.defaultColorScheme(Help.Ansi.OFF));
        md.append("```\n").append(help.synopsis(0).stripTrailing()).append("\n```\n");

        List<CommandLine> subs = c.getSubcommands().values().stream()
                .filter(s -> !s.getCommandSpec().usageMessage().hidden()).distinct().toList();
        if (!subs.isEmpty()) {
            md.append("\nCommands: ");
            md.append(String.join(", ", subs.stream().map(s -> "[`" + s.getCommandName() + "`](#"
                    + GuideTest.slug(heading(s.getCommandSpec())) + ")").toList())).append(".\n");
        }

        List<PositionalParamSpec> params = spec.positionalParameters().stream().filter(p -> !p.hidden()).toList();
        if (!params.isEmpty()) {
            md.append("\n| parameter | description |\n| --- | --- |\n");
            for (PositionalParamSpec p : params) {
                md.append("| `").append(p.paramLabel()).append('`')
                        .append(p.arity().min() == 0 ? " (optional)" : "")
                        .append(" | ").append(cell(description(p))).append(" |\n");
            }
        }

        List<OptionSpec> options = spec.options().stream().filter(o -> !o.hidden()).toList();
        if (!options.isEmpty()) {
            md.append("\n| option | value | default | description |\n| --- | --- | --- | --- |\n");
            for (OptionSpec o : options) {
                md.append("| ").append(names(o))
                        .append(" | ").append(o.typeInfo().isBoolean() || o.arity().max() == 0 ? "" : "`" + o.paramLabel() + "`")
                        .append(" | ").append(defaultValue(o))
                        .append(" | ").append(cell(description(o))).append(" |\n");
            }
        }

        Map<String, String> exitCodes = spec.usageMessage().exitCodeList();
        if (!exitCodes.isEmpty()) {
            md.append("\n| exit code | meaning |\n| --- | --- |\n");
            exitCodes.forEach((code, meaning) -> md.append("| ").append(cell(code.strip())).append(" | ")
                    .append(cell(meaning.strip())).append(" |\n"));
        }
    }

    private static String defaultValue(OptionSpec o) {
        if (o.usageHelp() || o.versionHelp() || o.arity().max() == 0) {
            return "";   // a flag: off unless given
        }
        String value = o.defaultValueString();
        return value == null || value.isEmpty() || value.equals("null") ? "" : "`" + cell(value) + "`";
    }

    /** Every command exits the same way (Jrdma's class comment and constants). */
    private static void exitCodes(StringBuilder md) {
        md.append("\n## Exit codes\n\n");
        md.append("| exit code | meaning |\n| --- | --- |\n");
        md.append("| `").append(ExitCode.OK).append("` | success |\n");
        md.append("| `").append(ExitCode.FAILURE).append("` | the run failed: device, peer or timeout; one line on stderr names the command and the error |\n");
        md.append("| `").append(ExitCode.USAGE).append("` | usage error: one line on stderr names the command and the option (`jrdma COMMAND --help` shows the usage) |\n");
    }
}
