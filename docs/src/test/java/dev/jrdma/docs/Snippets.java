// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Code blocks of the guide that are copies of marked regions of compiled sources. In a page:
 *
 * <pre>
 * &lt;!-- snippet: examples/src/main/java/dev/jrdma/examples/HelloServer.java#setup --&gt;
 * ```java
 * ...the region's text...
 * ```
 * </pre>
 *
 * The path is relative to the repository root; the fenced block right after the marker must be
 * the region's text (see {@link Regions}). {@link #refresh} rewrites every such block from its
 * region, which is what {@code scripts/docs-sync} does.
 */
final class Snippets {
    static final Pattern MARKER = Pattern.compile("^<!-- snippet: ([^#\\s]+)#([\\w.-]+) -->$");
    private static final Pattern FENCE_OPEN = Pattern.compile("^```(\\w*)$");

    private Snippets() {}

    /** One marker and the block after it; {@code fenceLine} is -1 when the marker has no block. */
    record Block(int markerLine, String path, String region, int fenceLine, String language, String text) {}

    /** The marked blocks of a page (lines are 0-based indexes into {@code lines}). */
    static List<Block> blocks(List<String> lines) {
        List<Block> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            Matcher fence = i + 1 < lines.size() ? FENCE_OPEN.matcher(lines.get(i + 1)) : null;
            if (fence == null || !fence.matches()) {
                out.add(new Block(i, m.group(1), m.group(2), -1, null, null));
                continue;
            }
            int close = i + 2;
            while (close < lines.size() && !lines.get(close).equals("```")) {
                close++;
            }
            if (close == lines.size()) {
                out.add(new Block(i, m.group(1), m.group(2), -1, null, null));   // unclosed: as if missing
                continue;
            }
            StringBuilder text = new StringBuilder();
            for (String l : lines.subList(i + 2, close)) {
                text.append(l).append('\n');
            }
            out.add(new Block(i, m.group(1), m.group(2), i + 1, fence.group(1), text.toString()));
            i = close;
        }
        return out;
    }

    /** The region a marker names; throws with the page and marker when the file or region is missing. */
    static Regions.Region region(Path root, Path page, Block block) throws IOException {
        Path source = root.resolve(block.path()).normalize();
        String where = page.getFileName() + ":" + (block.markerLine() + 1) + ": snippet " + block.path() + "#" + block.region();
        if (!Files.isRegularFile(source)) {
            throw new IllegalStateException(where + ": no such file (paths are relative to the repository root)");
        }
        Map<String, Regions.Region> regions = Regions.of(source);
        Regions.Region region = regions.get(block.region());
        if (region == null) {
            throw new IllegalStateException(where + ": no such region; the file has " + regions.keySet());
        }
        return region;
    }

    /** The page with every marked block replaced by its region's current text (a ```java block). */
    static String refresh(Path root, Path page) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(page));
        List<Block> blocks = blocks(lines);
        // Back to front, so that earlier line indexes stay valid.
        for (int b = blocks.size() - 1; b >= 0; b--) {
            Block block = blocks.get(b);
            Regions.Region region = region(root, page, block);
            List<String> replacement = new ArrayList<>();
            replacement.add("```" + (block.language() == null || block.language().isEmpty() ? "java" : block.language()));
            replacement.addAll(region.text().lines().toList());
            replacement.add("```");
            int from = block.markerLine() + 1;
            int to = block.fenceLine() < 0 ? from : from + 2 + (int) block.text().lines().count();
            lines.subList(from, to).clear();
            lines.addAll(from, replacement);
        }
        return String.join("\n", lines) + "\n";
    }
}
