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

    private static final String FOOTER_TAGS = "// tag::picocli-generated-man-section-footer[]\n"
            + "// end::picocli-generated-man-section-footer[]\n";

    /**
     * jrdma(1)'s sections that picocli's model has no place for (its footer is one section
     * without sub-headings): the environment the launcher reads, examples, related pages.
     */
    static final String ROOT_SECTIONS = """
            == Environment

            *JAVA_HOME*::
              The Java runtime to use (22 or newer; a JRE is enough). When it is unset or too old, the
            launcher takes the *java* on *PATH*, then the newest Java under _/usr/lib/jvm_, and names the
            versions it found when all are too old.

            *JRDMA_JAVA_OPTS*::
              JVM options added to the command line, e.g. *-Xmx1g* or *-Xlog:gc*. Setting the JIT
            (*TieredCompilation*, *TieredStopAtLevel*) or class-data sharing (*Xshare*,
            *SharedArchiveFile*) here replaces the launcher's own choices for emulated machines.

            *JDK_JAVA_OPTIONS*::
              Read by the *java* launcher itself, as for any Java program.

            == Examples

            List the RDMA devices, then show one's ports:

              jrdma devices
              jrdma devinfo -d rxe0

            Send latency between two hosts, as with ib_send_lat (server first, then the client
            naming the server):

              jrdma send-lat -d rxe0 -x 1
              jrdma send-lat -d rxe0 -x 1 192.0.2.1

            RDMA write bandwidth over all message sizes, the report as JSON:

              jrdma write-bw -d rxe0 -x 1 -a --json
              jrdma write-bw -d rxe0 -x 1 -a --json 192.0.2.1 > write-bw.json

            A jrdma side interoperates with perftest's: *ib_send_lat -d rxe0 -x 1* on one host and
            *jrdma send-lat -d rxe0 -x 1 HOST* on the other.

            == See also

            *jrdma-send-lat*(1), *jrdma-devinfo*(1), *ib_send_lat*(1), *ib_write_bw*(1),
            *ibv_devices*(1), *ibv_devinfo*(1), *rdma*(8), *rdma-link*(8)
            """;

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
        String page = text.toString().replace("\r\n", "\n");
        if (spec.parent() == null) {
            // The --help heading ("%nExit status:%n") as a man page heading.
            page = page.replace("\n==  Exit status:\n", "\n== Exit status\n");
            page = page.replace(FOOTER_TAGS, FOOTER_TAGS.replace("\n// end::", "\n" + ROOT_SECTIONS + "\n// end::"));
        }
        pages.put(spec.qualifiedName("-") + ".adoc", page);
        for (CommandLine sub : c.getSubcommands().values()) {
            if (!sub.getCommandSpec().usageMessage().hidden()) {
                add(sub, pages);
            }
        }
    }
}
