// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import java.util.List;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * How the generated pages write jrdma's command line into Markdown tables: the CLI reference
 * and the perftest mapping show an option by the same names and with the same --help text.
 */
final class MarkdownCells {
    private MarkdownCells() {}

    /** An option's names, each as code: {@code `-d`, `--ib-dev`}. */
    static String names(OptionSpec o) {
        return String.join(", ", List.of(o.names()).stream().map(n -> "`" + n + "`").toList());
    }

    /** The description as --help prints it: ${DEFAULT-VALUE} and ${COMPLETION-CANDIDATES} filled in. */
    static String description(ArgSpec a) {
        return String.join(" ", a.renderedDescription()).strip();
    }

    /** Text for a Markdown table cell: no line breaks, '|' escaped. */
    static String cell(String s) {
        return s.replaceAll("\\s*\\R\\s*", " ").replace("|", "\\|");
    }
}
