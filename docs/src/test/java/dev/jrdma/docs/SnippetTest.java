// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guide's Java code is the code CI compiles and runs: every ```java block of a page is a
 * marked snippet ({@link Snippets}) equal to its region of a source file, and every example
 * program is quoted by some page. With {@code -Djrdma.docs.write=true} ({@code scripts/docs-sync})
 * the blocks are rewritten from the sources instead.
 */
class SnippetTest {
    private static final Path EXAMPLES = Guide.ROOT.resolve("examples/src/main/java/dev/jrdma/examples");

    @Test
    void snippetBlocksEqualTheirRegions() throws IOException {
        List<String> stale = new ArrayList<>();
        for (Path page : Guide.pages()) {
            String current = Files.readString(page);
            String fresh = Snippets.refresh(Guide.ROOT, page);
            if (current.equals(fresh)) {
                continue;
            }
            if (Guide.writing()) {
                Files.writeString(page, fresh);
                System.out.println("docs-sync: rewrote the snippets of " + Guide.ROOT.relativize(page));
                continue;
            }
            List<String> lines = Files.readAllLines(page);
            for (Snippets.Block block : Snippets.blocks(lines)) {
                Regions.Region region = Snippets.region(Guide.ROOT, page, block);
                if (block.fenceLine() < 0) {
                    stale.add(page.getFileName() + ":" + (block.markerLine() + 1) + ": no ``` block after the marker of "
                            + block.path() + "#" + block.region());
                } else if (!region.text().equals(block.text())) {
                    stale.add(page.getFileName() + ":" + (block.markerLine() + 1) + ": the block differs from region \""
                            + block.region() + "\" of " + block.path() + " (line " + region.line() + ")");
                }
            }
        }
        assertEquals(List.of(), stale, "snippets out of date; refresh them with " + Guide.SYNC_COMMAND);
    }

    @Test
    void everyJavaBlockIsASnippet() throws IOException {
        List<String> loose = new ArrayList<>();
        for (Path page : Guide.pages()) {
            List<String> lines = Files.readAllLines(page);
            boolean inFence = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.strip().startsWith("<!--") && line.contains("snippet") && !Snippets.MARKER.matcher(line).matches()) {
                    loose.add(page.getFileName() + ":" + (i + 1) + " (malformed marker: " + line.strip() + ")");
                }
                if (!line.startsWith("```")) {
                    continue;
                }
                if (!inFence && line.equals("```java")
                        && (i == 0 || !Snippets.MARKER.matcher(lines.get(i - 1)).matches())) {
                    loose.add(page.getFileName() + ":" + (i + 1));
                }
                inFence = !inFence;
            }
        }
        assertEquals(List.of(), loose, "```java blocks without a '<!-- snippet: PATH#REGION -->' line before them:"
                + " the guide shows only code that CI compiles; mark a region in the source and quote it");
    }

    @Test
    void everyExampleIsQuoted() throws IOException {
        Set<String> quoted = new TreeSet<>();
        for (Path page : Guide.pages()) {
            for (Snippets.Block block : Snippets.blocks(Files.readAllLines(page))) {
                quoted.add(Path.of(block.path()).getFileName().toString());
            }
        }
        Set<String> programs = new TreeSet<>();
        try (Stream<Path> s = Files.list(EXAMPLES)) {
            // The programs are the classes with a main method; Cli parses their options.
            for (Path source : s.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (Files.readString(source).contains("public static void main(")) {
                    programs.add(source.getFileName().toString());
                }
            }
        }
        assertTrue(programs.size() >= 7, "found only " + programs + " in " + EXAMPLES);
        programs.removeAll(quoted);
        assertEquals(Set.of(), programs, "examples no guide page quotes (add a tutorial)");
    }

    /**
     * The tutorials' captured outputs are real runs, not maintained by docs-sync; this catches
     * the drift that matters: every "server: ..." or "client: ..." line must start with the
     * fixed text of a message the examples still print (up to the first number, quote or
     * address in the line).
     */
    @Test
    void capturedOutputLinesAreMessagesTheExamplesPrint() throws IOException {
        StringBuilder sources = new StringBuilder();
        try (Stream<Path> s = Files.list(EXAMPLES)) {
            for (Path source : s.filter(p -> p.toString().endsWith(".java")).toList()) {
                sources.append(Files.readString(source));
            }
        }
        List<String> unknown = new ArrayList<>();
        int checked = 0;
        for (Path page : Guide.pages()) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (!lines.get(i).startsWith("<!-- output of ") || !lines.get(i + 1).equals("```")) {
                    continue;
                }
                for (int j = i + 2; j < lines.size() && !lines.get(j).equals("```"); j++) {
                    String line = lines.get(j).strip();
                    if (!line.startsWith("server: ") && !line.startsWith("client: ")) {
                        continue;
                    }
                    String fixed = fixedPrefix(line);
                    checked++;
                    if (!sources.toString().contains(fixed)) {
                        unknown.add(page.getFileName() + ":" + (j + 1) + ": no example prints \"" + fixed + "...\"");
                    }
                }
            }
        }
        assertTrue(checked >= 30, "expected the tutorials' captured outputs, found " + checked + " lines");
        assertEquals(List.of(), unknown, "captured output the examples no longer print: rerun"
                + " `scripts/softroce --timeout 900 -- examples/run all` and paste the new output");
    }

    /** The text before the first digit, quote or '/', cut back to a word boundary. */
    static String fixedPrefix(String line) {
        int cut = 0;
        while (cut < line.length() && "0123456789\"/".indexOf(line.charAt(cut)) < 0) {
            cut++;
        }
        if (cut == line.length()) {
            return line;
        }
        int space = line.lastIndexOf(' ', cut - 1);
        return line.substring(0, space + 1);
    }

    @Test
    void tutorialsHaveSnippets() throws IOException {
        for (Path page : Guide.pages()) {
            if (page.getFileName().toString().startsWith("tutorial-")) {
                assertTrue(Snippets.blocks(Files.readAllLines(page)).size() >= 2,
                        page.getFileName() + " quotes no example code");
            }
        }
    }

    @Test
    void regionsNestDedentAndDropMarkers(@TempDir Path dir) throws IOException {
        Path source = dir.resolve("A.java");
        Files.writeString(source, """
                class A {
                    void f() {
                        // @start region="outer"
                        int a = 1;
                        // @start region=inner
                        if (a > 0) {
                            a++;
                        }
                        // @end region=inner

                        // @end
                    }
                }
                """);
        Map<String, Regions.Region> regions = Regions.of(source);
        assertEquals("int a = 1;\nif (a > 0) {\n    a++;\n}\n", regions.get("outer").text());
        assertEquals("if (a > 0) {\n    a++;\n}\n", regions.get("inner").text());
        assertEquals(3, regions.get("outer").line());
    }

    @Test
    void malformedRegionsAreErrors(@TempDir Path dir) throws IOException {
        Path unclosed = Files.writeString(dir.resolve("B.java"), "// @start region=\"a\"\nx();\n");
        assertTrue(assertThrows(IllegalStateException.class, () -> Regions.of(unclosed)).getMessage().contains("no @end"));
        Path stray = Files.writeString(dir.resolve("C.java"), "x();\n// @end\n");
        assertTrue(assertThrows(IllegalStateException.class, () -> Regions.of(stray)).getMessage().contains("without"));
        Path twice = Files.writeString(dir.resolve("D.java"),
                "// @start region=a\n// @end\n// @start region=a\n// @end\n");
        assertTrue(assertThrows(IllegalStateException.class, () -> Regions.of(twice)).getMessage().contains("twice"));
        Path inline = Files.writeString(dir.resolve("E.java"), "x(); // @start region=a\n// @end\n");
        assertTrue(assertThrows(IllegalStateException.class, () -> Regions.of(inline)).getMessage().contains("own"));
    }

    @Test
    void refreshReplacesStaleBlocksAndFillsMissingOnes(@TempDir Path root) throws IOException {
        Files.writeString(root.resolve("S.java"), "// @start region=r\n  call();\n// @end\n");
        Path page = root.resolve("p.md");
        Files.writeString(page, """
                # Page
                <!-- snippet: S.java#r -->
                ```java
                old();
                ```
                text
                <!-- snippet: S.java#r -->
                end
                """);
        assertEquals("""
                # Page
                <!-- snippet: S.java#r -->
                ```java
                call();
                ```
                text
                <!-- snippet: S.java#r -->
                ```java
                call();
                ```
                end
                """, Snippets.refresh(root, page));
        Files.writeString(page, "<!-- snippet: S.java#nope -->\n");
        assertTrue(assertThrows(IllegalStateException.class, () -> Snippets.refresh(root, page))
                .getMessage().contains("no such region"));
    }
}
