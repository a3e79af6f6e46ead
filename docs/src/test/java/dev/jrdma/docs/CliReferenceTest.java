// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/guide/cli-reference.md is what {@link CliReference} generates from the current command
 * line; with {@code -Djrdma.docs.write=true} ({@code scripts/docs-sync}) it is rewritten instead.
 */
class CliReferenceTest {
    private static final Path PAGE = Guide.DIR.resolve(CliReference.PAGE);

    @Test
    void committedPageIsTheGeneratedOne() throws IOException {
        String generated = CliReference.generate();
        Guide.checkGenerated(PAGE, generated, " differs from the jrdma command line's model");
    }

    @Test
    void pageCoversEveryCommandAndOption() {
        String page = CliReference.generate();
        for (String command : new String[] {"send-lat", "send-bw", "write-lat", "write-bw", "read-lat", "read-bw",
                "atomic-lat", "atomic-bw", "devices", "devinfo"}) {
            assertTrue(page.contains("\n## `jrdma " + command + "`\n"), "no section for jrdma " + command);
        }
        // A few facts that must survive rendering: names, interpolated defaults, positional HOST.
        assertTrue(page.contains("`-d`, `--ib-dev`"), "option names");
        assertTrue(page.contains("| `HOST` (optional) |"), "positional parameter");
        assertTrue(!page.contains("${"), "uninterpolated picocli variable in the page");
    }
}
