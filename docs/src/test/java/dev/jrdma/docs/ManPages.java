// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import dev.jrdma.tools.Jrdma;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * The AsciiDoc sources of jrdma's man pages, one per command (jrdma(1), jrdma-send-lat(1), ...),
 * written by picocli-codegen's ManPageGenerator from the same model as the CLI reference. They
 * are committed under docs/man and checked like it; packaging/ renders them to troff.
 */
final class ManPages {
    static final Path DIR = Guide.ROOT.resolve("docs/man");

    private ManPages() {}

    /** File name (e.g. jrdma-send-lat.adoc) to page text, in command order. */
    static Map<String, String> generate() {
        CommandLine root = Jrdma.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        Map<String, String> pages = new LinkedHashMap<>();
        add(root, pages);
        return pages;
    }

    private static void add(CommandLine c, Map<String, String> pages) {
        CommandSpec spec = c.getCommandSpec();
        // The page names no version: the version provider prints the JVM and the loaded
        // libibverbs. packaging/ sets mansource and revnumber to the project version.
        spec.versionProvider(() -> new String[] {"jrdma"});
        StringWriter text = new StringWriter();
        try (PrintWriter pw = new PrintWriter(text)) {
            ManPageGenerator.writeSingleManPage(pw, spec);
        }
        pages.put(spec.qualifiedName("-") + ".adoc", text.toString().replace("\r\n", "\n"));
        for (CommandLine sub : c.getSubcommands().values()) {
            if (!sub.getCommandSpec().usageMessage().hidden()) {
                add(sub, pages);
            }
        }
    }
}
