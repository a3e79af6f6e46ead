// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The public functions of rdma-core's three application headers, as the installed headers
 * declare them (scripts/setup installs libibverbs-dev and librdmacm-dev).
 *
 * <p>gcc lists them: {@code gcc -fsyntax-only -aux-info} writes one line per function the
 * translation unit declares or defines, with its file and line, exported prototypes and
 * {@code static inline} definitions alike. That is the compiler's own reading of the headers
 * (macros, {@code #ifdef}s and line continuations resolved), where a hand-written parser would
 * have to guess; the bindings' LayoutTest already needs gcc on the build machine.
 *
 * <p>Counted: every function of the header, leaving out what no application calls by name:
 * the internal aliases the header's macros and inline wrappers call ({@code __ibv_*},
 * {@code _ibv_*}, {@code ___ibv_query_port}, {@code verbs_get_ctx}, {@code ibv_static_providers})
 * and the {@code *_str} helpers, whose names the API's enums carry.
 */
final class HeaderFunctions {
    /** The headers, as an application includes them. */
    static final List<String> HEADERS =
            List.of("infiniband/verbs.h", "rdma/rdma_cma.h", "rdma/rdma_verbs.h", "rdma/rsocket.h");

    /** One aux-info line: {@code /* FILE:LINE:NC * / extern TYPE NAME (ARGS);} (NF for a definition). */
    private static final Pattern AUX_LINE = Pattern.compile("^/\\* (\\S+):\\d+:N[CF] \\*/ .*?\\b([A-Za-z_]\\w*) \\(");

    private static final Pattern INTERNAL = Pattern.compile("_+ibv_\\w*|verbs_get_ctx|ibv_static_providers|\\w+_str");

    private HeaderFunctions() {}

    /** {@return whether an application calls the function by name (see the class comment)} */
    static boolean counted(String function) {
        return !INTERNAL.matcher(function).matches();
    }

    /** {@return every function each header declares or defines, internal ones included, sorted} */
    static Map<String, SortedSet<String>> declared() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("jrdma-headers");
        try {
            Path source = dir.resolve("headers.c");
            Path aux = dir.resolve("headers.aux");
            StringBuilder c = new StringBuilder();
            for (String header : HEADERS) {
                c.append("#include <").append(header).append(">\n");
            }
            Files.writeString(source, c);
            Process gcc = new ProcessBuilder("gcc", "-fsyntax-only", "-aux-info", aux.toString(), source.toString())
                    .redirectErrorStream(true).start();
            String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                throw new IOException("gcc -aux-info on " + HEADERS + " failed (scripts/setup installs gcc and the "
                        + "rdma-core headers): " + output);
            }
            return parse(Files.readAllLines(aux));
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    /** The functions per header in gcc's aux-info lines; lines of other files are skipped. */
    static Map<String, SortedSet<String>> parse(List<String> auxLines) {
        Map<String, SortedSet<String>> out = new LinkedHashMap<>();
        for (String header : HEADERS) {
            out.put(header, new TreeSet<>());
        }
        List<String> unparsed = new ArrayList<>();
        for (String line : auxLines) {
            if (!line.startsWith("/* /")) {
                continue;
            }
            String file = fileOf(line);
            String header = HEADERS.stream().filter(h -> file.endsWith("/" + h)).findFirst().orElse(null);
            if (header == null) {
                continue;
            }
            Matcher m = AUX_LINE.matcher(line);
            if (m.find()) {
                out.get(header).add(m.group(2));
            } else {
                unparsed.add(line);
            }
        }
        if (!unparsed.isEmpty()) {
            throw new IllegalStateException("aux-info lines of the rdma-core headers not understood: " + unparsed);
        }
        return out;
    }

    private static String fileOf(String line) {
        int colon = line.indexOf(':', 3);
        return colon < 0 ? "" : line.substring(3, colon);
    }

    /** {@return the counted functions of each header (see {@link #counted}), sorted} */
    static Map<String, SortedSet<String>> counted(Map<String, SortedSet<String>> declared) {
        Map<String, SortedSet<String>> out = new LinkedHashMap<>();
        declared.forEach((header, functions) -> {
            SortedSet<String> kept = new TreeSet<>();
            functions.stream().filter(HeaderFunctions::counted).forEach(kept::add);
            out.put(header, kept);
        });
        return out;
    }
}
