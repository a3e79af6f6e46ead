// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tutorials' code (and that of the other pages for application writers; not architecture.md,
 * which quotes jrdma's internals on purpose) is meant to be copied into an application, so its snippets may name only
 * the published API (the public types of the exported packages) and the JDK: a snippet that calls a
 * helper living in examples/ would not compile once copied. Every type name in a snippet must be
 * a public type of a package the API module exports ({@code dev.jrdma}, {@code dev.jrdma.cm}) or a JDK type (java.lang, or imported from java.*, javax.*, jdk.* by
 * the source the snippet is cut from).
 */
class PublishedApiTest {
    /** Pages besides the tutorials whose code an application copies. */
    private static final Set<String> APPLICATION_PAGES = Set.of("getting-started.md", "applications.md",
            "remote-access-errors.md", "concepts.md", "troubleshooting.md");
    private static final Path API = Guide.ROOT.resolve("idiomatic-api/src/main/java");
    /** An unqualified export of the API's module-info: the packages an application sees. */
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|enum|record|@interface) (\\w+)",
            Pattern.MULTILINE);
    private static final Pattern NESTED_PUBLIC_TYPE = Pattern.compile(
            "^    public (?:static )?(?:final |abstract )*(?:class|interface|enum|record) (\\w+)", Pattern.MULTILINE);
    /** A capitalised identifier not preceded by '.', with a lower-case letter in it (not a CONSTANT). */
    private static final Pattern TYPE_NAME = Pattern.compile("(?<![.\\w])([A-Z]\\w*[a-z]\\w*)\\b");
    private static final Pattern JDK_IMPORT = Pattern.compile("^import (?:java|javax|jdk)\\.[\\w.]*\\.(\\w+);",
            Pattern.MULTILINE);
    private static final Pattern COMMENTS_AND_STRINGS = Pattern.compile(
            "//[^\\n]*|/\\*.*?\\*/|\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])'", Pattern.DOTALL);

    /** {@return the directories of the packages module-info exports} */
    static List<Path> exportedPackages() throws IOException {
        List<Path> packages = new ArrayList<>();
        Matcher m = EXPORTS.matcher(Files.readString(API.resolve("module-info.java")));
        while (m.find()) {
            packages.add(API.resolve(m.group(1).replace('.', '/')));
        }
        return packages;
    }

    static Set<String> publishedTypes() throws IOException {
        Set<String> types = new TreeSet<>();
        for (Path pkg : exportedPackages()) {
            addPublicTypes(pkg, types);
        }
        return types;
    }

    private static void addPublicTypes(Path pkg, Set<String> types) throws IOException {
        try (Stream<Path> s = Files.list(pkg)) {
            for (Path source : s.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(source);
                Matcher top = PUBLIC_TYPE.matcher(text);
                while (top.find()) {
                    types.add(top.group(1));
                }
                Matcher nested = NESTED_PUBLIC_TYPE.matcher(text);
                while (nested.find()) {
                    types.add(nested.group(1));
                }
            }
        }
    }

    /** The type names {@code code} uses that are neither published nor the JDK's. */
    static Set<String> foreignTypes(String code, Set<String> published, Set<String> jdkImports) {
        Set<String> foreign = new TreeSet<>();
        Matcher m = TYPE_NAME.matcher(COMMENTS_AND_STRINGS.matcher(code).replaceAll(" "));
        while (m.find()) {
            String name = m.group(1);
            if (!published.contains(name) && !jdkImports.contains(name) && !inJavaLang(name)) {
                foreign.add(name);
            }
        }
        return foreign;
    }

    private static boolean inJavaLang(String name) {
        try {
            Class.forName("java.lang." + name, false, PublishedApiTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Test
    void snippetsNameOnlyThePublishedApiAndTheJdk() throws IOException {
        Set<String> published = publishedTypes();
        assertTrue(published.containsAll(Set.of("Context", "ControlConnection", "QueuePair", "RdmaTimeoutException",
                "CmId", "CmEventChannel")), published.toString());
        assertTrue(published.stream().noneMatch(Set.of("CoreAccess", "Readiness", "CValues")::contains),
                "dev.jrdma.internal is not exported: " + published);
        List<String> foreign = new ArrayList<>();
        int checked = 0;
        for (Path page : Guide.pages()) {
            String name = page.getFileName().toString();
            if (!name.startsWith("tutorial-") && !APPLICATION_PAGES.contains(name)) {
                continue;
            }
            for (Snippets.Block block : Snippets.blocks(Files.readAllLines(page))) {
                if (block.text() == null || !"java".equals(block.language())) {
                    continue;
                }
                Set<String> jdk = new TreeSet<>();
                Matcher imports = JDK_IMPORT.matcher(Files.readString(Guide.ROOT.resolve(block.path())));
                while (imports.find()) {
                    jdk.add(imports.group(1));
                }
                checked++;
                Set<String> names = foreignTypes(block.text(), published, jdk);
                if (!names.isEmpty()) {
                    foreign.add(page.getFileName() + ":" + (block.markerLine() + 1) + " " + block.path() + "#"
                            + block.region() + " names " + names);
                }
            }
        }
        assertTrue(checked >= 20, "expected the tutorials' snippets, found " + checked);
        assertEquals(List.of(), foreign, "tutorial code that an application could not compile with jrdma alone:"
                + " move the helper into the library or inline it with JDK calls");
    }

    @Test
    void theCheckCatchesAnExamplesHelper() {
        Set<String> published = Set.of("Context", "GidEntry");
        assertEquals(Set.of("Common"), foreignTypes("""
                GidEntry gid = Common.gid(context);   // Comment Words are ignored
                String s = "Quoted Text";
                Thread t = Thread.ofVirtual().unstarted(() -> {});
                int x = HELLO.length();
                """, published, Set.of()));
    }
}
