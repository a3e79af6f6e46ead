// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/man/*.adoc are what {@link ManPages} generates from the current command line; with
 * {@code -Djrdma.docs.write=true} ({@code scripts/docs-sync}) they are rewritten instead, and
 * pages of removed commands deleted.
 */
class ManPagesTest {
    @Test
    void committedPagesAreTheGenerated() throws IOException {
        Map<String, String> generated = ManPages.generate();
        Files.createDirectories(ManPages.DIR);
        List<Path> committed;
        try (Stream<Path> s = Files.list(ManPages.DIR)) {
            committed = s.filter(p -> p.toString().endsWith(".adoc")).sorted().toList();
        }
        if (Guide.writing()) {
            for (Path p : committed) {
                if (!generated.containsKey(p.getFileName().toString())) {
                    Files.delete(p);
                    System.out.println("docs-sync: deleted " + Guide.ROOT.relativize(p));
                }
            }
        } else {
            assertEquals(new TreeSet<>(generated.keySet()),
                    new TreeSet<>(committed.stream().map(p -> p.getFileName().toString()).toList()),
                    "docs/man holds a page per command; regenerate with " + Guide.SYNC_COMMAND);
        }
        for (Map.Entry<String, String> e : generated.entrySet()) {
            Guide.checkGenerated(ManPages.DIR.resolve(e.getKey()), e.getValue(),
                    " differs from the jrdma command line's model");
        }
    }

    /** jrdma(1) has what a man page user looks for besides the options (issue 48). */
    @Test
    void theRootPageHasExitStatusEnvironmentExamplesAndSeeAlso() throws IOException {
        String page = Files.readString(ManPages.DIR.resolve("jrdma.adoc"));
        for (String section : List.of("== Exit status", "== Environment", "== Examples", "== See also")) {
            assertTrue(page.contains("\n" + section + "\n"), "jrdma(1) has no section " + section);
        }
        for (String text : List.of("*0*::", "*1*::", "*2*::", "*JRDMA_JAVA_OPTS*::", "*JAVA_HOME*::",
                "jrdma send-lat -d rxe0 -x 1 192.0.2.1", "*ib_send_lat*(1)", "*ibv_devinfo*(1)")) {
            assertTrue(page.contains(text), "jrdma(1) lacks " + text);
        }
    }

    @Test
    void everyCommandHasAPage() {
        Map<String, String> pages = ManPages.generate();
        for (String command : new String[] {"jrdma", "jrdma-send-lat", "jrdma-send-bw", "jrdma-write-lat",
                "jrdma-write-bw", "jrdma-read-lat", "jrdma-read-bw", "jrdma-atomic-lat", "jrdma-atomic-bw",
                "jrdma-devices", "jrdma-devinfo"}) {
            String page = pages.get(command + ".adoc");
            assertTrue(page != null, "no man page for " + command);
            assertTrue(page.contains("\n= " + command + "(1)\n"), command + ": title");
            assertTrue(page.contains(":mansource: jrdma\n"), command + ": no machine-specific version in the page");
        }
        assertTrue(pages.get("jrdma-send-lat.adoc").contains("*-d*, *--ib-dev*"), "option names of send-lat");
    }
}
