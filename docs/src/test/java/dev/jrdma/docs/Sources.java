// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

/**
 * Just enough Java lexing to read annotations from sources: comments and string contents masked
 * (same length, newlines kept, so offsets and line numbers stay those of the source), bracket
 * matching, and where a member's annotations begin.
 */
final class Sources {
    private Sources() {}

    /** The source with every comment replaced by spaces (newlines kept); literals untouched. */
    static String withoutComments(String source) {
        return mask(source, true, false);
    }

    /** The source with the contents of string, text block and char literals replaced by 'x'. */
    static String withoutStringContents(String source) {
        return mask(source, false, true);
    }

    private static String mask(String s, boolean comments, boolean strings) {
        StringBuilder out = new StringBuilder(s);
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                int end = s.indexOf('\n', i);
                end = end < 0 ? n : end;
                blank(out, i, end, comments, ' ');
                i = end;
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(out, i, end, comments, ' ');
                i = end;
            } else if (s.startsWith("\"\"\"", i)) {
                int end = s.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end;
                blank(out, i + 3, end, strings, 'x');
                i = Math.min(n, end + 3);
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && s.charAt(j) != c && s.charAt(j) != '\n') {
                    j += s.charAt(j) == '\\' ? 2 : 1;
                }
                blank(out, i + 1, Math.min(j, n), strings, 'x');
                i = j + 1;
            } else {
                i++;
            }
        }
        return out.toString();
    }

    private static void blank(StringBuilder out, int from, int to, boolean enabled, char with) {
        if (!enabled) {
            return;
        }
        for (int k = from; k < to; k++) {
            if (out.charAt(k) != '\n') {
                out.setCharAt(k, with);
            }
        }
    }

    /** {@return the index of the bracket closing the one at {@code open} in masked source} */
    static int matching(String shape, int open) {
        char o = shape.charAt(open);
        char c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : 0;
        int depth = 0;
        for (int i = open; i < shape.length(); i++) {
            char ch = shape.charAt(i);
            if (ch == o) {
                depth++;
            } else if (ch == c && --depth == 0) {
                return i;
            }
        }
        throw new IllegalStateException("unbalanced '" + o + "' at offset " + open);
    }

    /**
     * {@return where the member around {@code at} begins: just after the previous ';', '{' or '}'
     * outside parentheses} So its annotations are between the result and the declaration.
     */
    static int memberStart(String shape, int at) {
        int depth = 0;
        for (int i = at - 1; i >= 0; i--) {
            char ch = shape.charAt(i);
            if (ch == ')') {
                depth++;
            } else if (ch == '(') {
                depth--;
            } else if (depth == 0 && (ch == ';' || ch == '{' || ch == '}')) {
                return i + 1;
            }
        }
        return 0;
    }

    /** {@return the 1-based line of offset {@code at}} */
    static int line(String source, int at) {
        int line = 1;
        for (int i = 0; i < at && i < source.length(); i++) {
            if (source.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The value of a string literal's body: the escapes an annotation text plausibly holds. */
    static String unescape(String body) {
        StringBuilder out = new StringBuilder(body.length());
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\' || i + 1 == body.length()) {
                out.append(c);
                continue;
            }
            char e = body.charAt(++i);
            out.append(switch (e) {
                case 'n' -> '\n';
                case 't' -> '\t';
                default -> e;
            });
        }
        return out.toString();
    }
}
