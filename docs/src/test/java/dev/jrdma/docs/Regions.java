// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The regions of a source file, marked the way javadoc's {@code {@snippet}} marks them, so that
 * the same markers serve the guide and the javadoc:
 *
 * <pre>
 *     // @start region="setup"
 *     ...code...
 *     // @end
 * </pre>
 *
 * A region's text is the lines between its markers, without any marker line (regions may nest),
 * with the indentation they share removed: what javadoc shows for {@code region=setup}.
 */
final class Regions {
    private static final Pattern START = Pattern.compile("^\\s*//\\s*@start\\s+region\\s*=\\s*\"?([\\w.-]+)\"?\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*//\\s*@end(?:\\s+region\\s*=\\s*\"?([\\w.-]+)\"?)?\\s*$");
    /** A marker that is not alone on its line: javadoc would accept it, but keep the sources plain. */
    private static final Pattern ANY_MARKER = Pattern.compile("//\\s*@(start|end)\\b");

    private Regions() {}

    /** A region: its text and the 1-based line of its {@code @start} marker. */
    record Region(String name, int line, String text) {}

    /** All regions of {@code source}, by name, in the order they start; throws on malformed markers. */
    static Map<String, Region> of(Path source) throws IOException {
        List<String> lines = Files.readAllLines(source);
        record Open(String name, int line, List<String> body) {}
        Map<String, Region> regions = new LinkedHashMap<>();
        Deque<Open> open = new ArrayDeque<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String where = source + ":" + (i + 1);
            Matcher start = START.matcher(line);
            Matcher end = END.matcher(line);
            if (start.matches()) {
                String name = start.group(1);
                if (regions.containsKey(name) || open.stream().anyMatch(o -> o.name().equals(name))) {
                    throw new IllegalStateException(where + ": region \"" + name + "\" is defined twice");
                }
                open.push(new Open(name, i + 1, new ArrayList<>()));
            } else if (end.matches()) {
                if (open.isEmpty()) {
                    throw new IllegalStateException(where + ": @end without an open region");
                }
                if (end.group(1) != null && !end.group(1).equals(open.peek().name())) {
                    throw new IllegalStateException(where + ": @end region=" + end.group(1)
                            + " but the innermost open region is \"" + open.peek().name() + "\"");
                }
                Open done = open.pop();
                regions.put(done.name(), new Region(done.name(), done.line(), dedent(done.body())));
            } else if (ANY_MARKER.matcher(line).find()) {
                throw new IllegalStateException(where + ": put region markers on a line of their own: " + line.strip());
            } else {
                for (Open o : open) {
                    o.body().add(line);
                }
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalStateException(source + ":" + open.peek().line() + ": region \""
                    + open.peek().name() + "\" has no @end");
        }
        return regions;
    }

    /** Drops leading and trailing blank lines and the indentation all other lines share. */
    static String dedent(List<String> body) {
        int from = 0;
        int to = body.size();
        while (from < to && body.get(from).isBlank()) {
            from++;
        }
        while (to > from && body.get(to - 1).isBlank()) {
            to--;
        }
        List<String> lines = body.subList(from, to);
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder out = new StringBuilder();
        for (String l : lines) {
            out.append(l.isBlank() ? "" : l.substring(indent).stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
