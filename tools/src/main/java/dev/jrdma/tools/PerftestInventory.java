// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * perftest's options for the eight {@code ib_*} tests, read from {@code perftest-options.tsv} next
 * to this class: which tests list each option in perftest 6.06 (the installed binaries' usage text,
 * which a device test compares with this file) and in perftest 26.04 (its {@code usage()}). The
 * mapping page of the guide is generated from it, so every option perftest offers is accounted for
 * in jrdma: implemented with perftest's name, refused by name, or listed as not done yet.
 */
public final class PerftestInventory {
    /** perftest's binaries in the order the inventory and the page list them. */
    public static final List<String> TESTS = List.of("send_lat", "send_bw", "write_lat", "write_bw", "read_lat",
            "read_bw", "atomic_lat", "atomic_bw");

    private static final String RESOURCE = "perftest-options.tsv";

    private PerftestInventory() {}

    /**
     * One option of perftest's usage text.
     *
     * @param shortName  {@code -x}, or null
     * @param longName   {@code --gid-index}, as usage() prints it
     * @param takesValue getopt requires a value
     * @param in606      the tests perftest 6.06 lists it for ({@code ib_send_lat} is "send_lat")
     * @param in2604     the tests perftest 26.04 lists it for
     * @param getoptName the name long_options[] accepts when it differs from the usage text, or null
     * @param usage606   the name 6.06's usage text prints when it differs from {@code longName}, or null
     */
    public record Option(String shortName, String longName, boolean takesValue, Set<String> in606,
                         Set<String> in2604, String getoptName, String usage606) {
        /** {@return the tests any of the two versions offers it on, in {@link #TESTS} order} */
        public Set<String> tests() {
            Set<String> all = new LinkedHashSet<>();
            for (String t : TESTS) {
                if (in606.contains(t) || in2604.contains(t)) {
                    all.add(t);
                }
            }
            return all;
        }

        /** {@return every long name perftest prints or accepts for it} */
        public List<String> longNames() {
            List<String> names = new ArrayList<>(List.of(longName));
            Optional.ofNullable(getoptName).ifPresent(names::add);
            Optional.ofNullable(usage606).ifPresent(names::add);
            return names;
        }

        /** {@return the name 6.06's usage text prints} */
        public String longName606() {
            return usage606 != null ? usage606 : longName;
        }
    }

    /** {@return every option, in the file's order} */
    public static List<Option> options() {
        try (InputStream in = PerftestInventory.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses the inventory's lines; throws IllegalArgumentException naming a malformed line. */
    static List<Option> parse(List<String> lines) {
        List<Option> options = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            if (f.length < 5 || f.length > 6 || !f[1].startsWith("--") || !(f[0].equals("-") || f[0].matches("-[A-Za-z]"))
                    || !(f[2].equals("arg") || f[2].equals("-"))) {
                throw new IllegalArgumentException(RESOURCE + " line " + (i + 1) + ": malformed: " + line);
            }
            Map<String, String> notes = new TreeMap<>();
            if (f.length == 6) {
                for (String note : f[5].split(" ")) {
                    String[] kv = note.split("=", 2);
                    if (kv.length != 2 || !Set.of("getopt", "6.06-usage").contains(kv[0])) {
                        throw new IllegalArgumentException(RESOURCE + " line " + (i + 1) + ": unknown note " + note);
                    }
                    notes.put(kv[0], kv[1]);
                }
            }
            options.add(new Option(f[0].equals("-") ? null : f[0], f[1], f[2].equals("arg"), tests(f[3], i),
                    tests(f[4], i), notes.get("getopt"), notes.get("6.06-usage")));
        }
        return List.copyOf(options);
    }

    private static Set<String> tests(String field, int line) {
        if (field.equals("*")) {
            return new LinkedHashSet<>(TESTS);
        }
        if (field.equals("-")) {
            return Set.of();
        }
        Set<String> tests = new LinkedHashSet<>(Arrays.asList(field.split(",")));
        if (!TESTS.containsAll(tests)) {
            throw new IllegalArgumentException(RESOURCE + " line " + (line + 1) + ": unknown test in " + field);
        }
        return tests;
    }

    /** {@return the jrdma subcommand of a perftest binary: "send_lat" -> "send-lat"} */
    public static String command(String test) {
        return test.replace('_', '-');
    }
}
