// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Where the guide and the repository are, and whether the tests should rewrite generated text. */
final class Guide {
    /** Surefire runs the tests with the module directory (docs/) as working directory. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path DIR = ROOT.resolve("docs/guide");
    /** The command that rewrites the snippet blocks and the CLI reference; failure messages name it. */
    static final String SYNC_COMMAND = "scripts/docs-sync";
    /** Set by scripts/docs-sync: the tests write the expected text instead of failing on a difference. */
    static final String WRITE_PROPERTY = "jrdma.docs.write";

    private Guide() {}

    static boolean writing() {
        return Boolean.getBoolean(WRITE_PROPERTY);
    }

    /** The guide's pages, docs/guide/*.md, sorted. */
    static List<Path> pages() throws IOException {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    /**
     * Fails unless {@code page} holds {@code generated} (a missing page holds nothing); under
     * scripts/docs-sync writes {@code generated} to the page instead. The failure reads the page's
     * path followed by {@code difference} and names the command that regenerates it.
     */
    static void checkGenerated(Path page, String generated, String difference) throws IOException {
        String committed = Files.exists(page) ? Files.readString(page) : "";
        if (writing() && !generated.equals(committed)) {
            Files.writeString(page, generated);
            System.out.println("docs-sync: rewrote " + ROOT.relativize(page));
            return;
        }
        assertEquals(generated, committed, ROOT.relativize(page) + difference + "; regenerate it with " + SYNC_COMMAND);
    }
}
