// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Checks that docs/guide holds together: every relative link and image points at a file that
 * exists, every #anchor names a heading of its page (GitHub's slug rules, which is where the
 * guide is read), every picture is well-formed SVG with a title and is used by some page, and
 * the index links every page. Surefire runs tests with the module directory as working directory.
 */
class GuideTest {
    private static final Path GUIDE = Path.of("guide").toAbsolutePath();
    /** Markdown links and images: [text](target) or ![alt](target); no nested parentheses in targets. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$", Pattern.MULTILINE);
    /** Fenced code blocks: links and headings inside them are not links and headings. */
    private static final Pattern FENCE = Pattern.compile("^```.*?^```", Pattern.MULTILINE | Pattern.DOTALL);

    private static List<Path> pages() throws IOException {
        try (Stream<Path> s = Files.list(GUIDE)) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    private static String prose(Path page) throws IOException {
        return FENCE.matcher(Files.readString(page)).replaceAll("");
    }

    /** GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, spaces to '-'. */
    static String slug(String heading) {
        String s = heading.strip().toLowerCase(Locale.ROOT).replace("`", "");
        s = s.replaceAll("[^\\p{L}\\p{N}_\\- ]", "");
        return s.replace(' ', '-');
    }

    private static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new HashSet<>();
        Matcher m = HEADING.matcher(prose(page));
        while (m.find()) {
            out.add(slug(m.group(1)));
        }
        return out;
    }

    @Test
    void guideHasItsPages() throws IOException {
        List<String> names = pages().stream().map(p -> p.getFileName().toString()).toList();
        for (String required : List.of("index.md", "getting-started.md", "concepts.md", "architecture.md",
                "troubleshooting.md", "perftest-mapping.md", "cli-reference.md", "tutorial-hello.md", "tutorial-write.md",
                "tutorial-read.md", "tutorial-atomics.md", "tutorial-ud.md", "tutorial-rdma-cm.md")) {
            assertTrue(names.contains(required), "docs/guide/" + required + " is missing");
        }
    }

    @Test
    void relativeLinksAndAnchorsResolve() throws IOException {
        assertEquals(List.of(), brokenLinks(pages()));
    }

    /** The READMEs that lead into the guide: the repository's and the examples'. */
    @Test
    void readmeLinksResolve() throws IOException {
        Path root = GUIDE.getParent().getParent();
        assertEquals(List.of(), brokenLinks(List.of(root.resolve("README.md"), root.resolve("examples/README.md"))));
    }

    private static List<String> brokenLinks(List<Path> files) throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : files) {
            Matcher m = LINK.matcher(prose(page));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;   // http:, https:, mailto: are not checked offline
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page.getFileName() + ": " + target + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
                    broken.add(page.getFileName() + ": " + target + " (no such heading)");
                }
            }
        }
        return broken;
    }

    @Test
    void indexLinksEveryPage() throws IOException {
        String index = prose(GUIDE.resolve("index.md"));
        for (Path page : pages()) {
            String name = page.getFileName().toString();
            if (!name.equals("index.md")) {
                assertTrue(index.contains("](" + name + ")"), "index.md does not link " + name);
            }
        }
    }

    @Test
    void picturesAreTitledSvgAndUsed() throws Exception {
        Path img = GUIDE.resolve("img");
        List<Path> svgs;
        try (Stream<Path> s = Files.list(img)) {
            svgs = s.filter(p -> p.toString().endsWith(".svg")).sorted().toList();
        }
        assertFalse(svgs.isEmpty(), "no pictures in " + img);
        StringBuilder allPages = new StringBuilder();
        for (Path page : pages()) {
            allPages.append(Files.readString(page));
        }
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        // Hand-drawn files need no DTD; refusing one also keeps the parser off the network.
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        DocumentBuilder builder = f.newDocumentBuilder();
        for (Path svg : svgs) {
            Element root = builder.parse(svg.toFile()).getDocumentElement();
            assertEquals("svg", root.getLocalName(), svg + ": root element");
            assertEquals("http://www.w3.org/2000/svg", root.getNamespaceURI(), svg + ": namespace");
            NodeList titles = root.getElementsByTagNameNS("http://www.w3.org/2000/svg", "title");
            assertTrue(titles.getLength() > 0 && !titles.item(0).getTextContent().isBlank(),
                    svg + ": needs a <title> (screen readers and tooltips show it)");
            assertTrue(allPages.indexOf("img/" + svg.getFileName()) >= 0, svg + " is not used by any page");
        }
    }
}
