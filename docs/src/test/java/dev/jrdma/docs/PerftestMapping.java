// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static dev.jrdma.docs.MarkdownCells.cell;
import static dev.jrdma.docs.MarkdownCells.description;
import static dev.jrdma.docs.MarkdownCells.names;

import dev.jrdma.tools.Jrdma;
import dev.jrdma.tools.PerftestInventory;
import dev.jrdma.tools.PerftestInventory.Option;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options part of docs/guide/perftest-mapping.md, generated from perftest's own option
 * inventory ({@link PerftestInventory}: the usage text of perftest 6.06 and 26.04 per test) and
 * the picocli model of jrdma's test commands. Each perftest option on each test that offers it
 * is one of: implemented (the jrdma command has an option of that name), refused by name (an
 * option of the command's {@code refusals} mixin, whose description says what it needs), or
 * pending (listed in {@link #PENDING} with the option group that implements it). Anything else
 * is a problem, and so is a pending option that is implemented after all.
 */
final class PerftestMapping {
    static final String PAGE = "perftest-mapping.md";
    static final String BEGIN = "<!-- BEGIN generated perftest options: docs/src/test/java/dev/jrdma/docs/"
            + "PerftestMapping.java from tools' perftest-options.tsv and the jrdma command line. "
            + "Do not edit: run scripts/docs-sync. -->";
    static final String END = "<!-- END generated perftest options -->";

    static final String POSTING = "posting and queues";
    static final String REPORTS = "reports and run control";
    static final String ADDRESSING = "addressing, multicast and ports";
    static final String OTHER = "rate limiter, memory and other verbs";

    /** A perftest option not implemented yet: its group, and the tests it is pending on (empty: all it is offered on). */
    record Pending(String group, Set<String> tests) {
    }

    /**
     * perftest's options that issue #36's option groups implement and that are not merged yet.
     * Trim it as they land: the test fails when a pending option turns out implemented.
     */
    static final Map<String, Pending> PENDING = pending();

    private static Map<String, Pending> pending() {
        Map<String, Pending> p = new LinkedHashMap<>();
        return p;
    }

    /** -c's values perftest has beyond jrdma's RC, UC and UD: refused, the reason as DeviceRefusals words it. */
    private static final List<String[]> CONNECTION_REFUSALS = List.of(
            new String[] {"-c XRC", "*", "asks the device (-d, or the first one) for XRC (IBV_DEVICE_XRC): refused "
                    + "when it lacks it (rxe does); on one that has it, jrdma's tests do not connect XRC QPs yet"},
            new String[] {"-c DC", "*", "needs the DC transport (mlx5 direct verbs)"},
            new String[] {"-c SRD", "send_lat,send_bw,write_lat,write_bw,read_lat,read_bw",
                    "needs the SRD transport (an AWS EFA device, efadv)"});

    /** How one perftest option stands in jrdma. */
    record Row(Option option, Map<String, OptionSpec> implemented, Map<String, OptionSpec> refused,
               Set<String> pendingOn, Pending pending) {
    }

    private final Map<String, CommandSpec> commands = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    private PerftestMapping() {
        CommandLine root = Jrdma.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        for (String test : PerftestInventory.TESTS) {
            commands.put(test, root.getSubcommands().get(PerftestInventory.command(test)).getCommandSpec());
        }
        for (Option o : PerftestInventory.options()) {
            Map<String, OptionSpec> implemented = new LinkedHashMap<>();
            Map<String, OptionSpec> refused = new LinkedHashMap<>();
            Set<String> pendingOn = new LinkedHashSet<>();
            Pending pending = PENDING.get(o.longName());
            for (String test : o.tests()) {
                CommandSpec spec = commands.get(test);
                OptionSpec jrdma = find(spec, o);
                boolean isRefusal = jrdma != null && refusals(spec).contains(jrdma);
                if (jrdma != null && !isRefusal) {
                    implemented.put(test, jrdma);
                    if (o.shortName() != null && !List.of(jrdma.names()).contains(o.shortName())) {
                        problems.add(o.longName() + ": jrdma " + PerftestInventory.command(test) + "'s "
                                + jrdma.longestName() + " lacks perftest's short name " + o.shortName());
                    }
                } else if (isRefusal) {
                    refused.put(test, jrdma);
                } else if (pending != null && (pending.tests().isEmpty() || pending.tests().contains(test))) {
                    pendingOn.add(test);
                } else {
                    problems.add(o.longName() + " (perftest " + versions(o) + ") is offered on ib_" + test
                            + " but jrdma " + PerftestInventory.command(test)
                            + " neither implements it nor refuses it by name, and it is not pending");
                }
            }
            if (pending != null) {
                Set<String> scope = pending.tests().isEmpty() ? o.tests() : pending.tests();
                for (String test : scope) {
                    if (implemented.containsKey(test)) {
                        problems.add(o.longName() + " is listed as pending (" + pending.group() + ") but jrdma "
                                + PerftestInventory.command(test) + " implements it: remove it from PerftestMapping.PENDING");
                    }
                }
            }
            rows.add(new Row(o, implemented, refused, pendingOn, pending));
        }
        for (String name : PENDING.keySet()) {
            if (rows.stream().noneMatch(r -> r.option().longName().equals(name))) {
                problems.add("pending " + name + " is not one of perftest's options");
            }
        }
    }

    static PerftestMapping current() {
        return new PerftestMapping();
    }

    /** Options of the inventory neither implemented nor refused nor pending, and pending ones that are implemented. */
    List<String> problems() {
        return problems;
    }

    List<Row> rows() {
        return rows;
    }

    /** The jrdma option with one of perftest's long names (the usage text's, getopt's or 6.06's spelling). */
    private static OptionSpec find(CommandSpec spec, Option o) {
        for (OptionSpec candidate : spec.options()) {
            for (String name : candidate.names()) {
                if (o.longNames().contains(name)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    /** The options of the command's refusal mixins: "refusals", and per-test ones named "refusalsOf...". */
    private static List<OptionSpec> refusals(CommandSpec spec) {
        List<CommandSpec> mixins = spec.mixins().entrySet().stream()
                .filter(e -> e.getKey().startsWith("refusals")).map(Map.Entry::getValue).toList();
        return spec.options().stream().filter(o -> mixins.stream().anyMatch(mixin -> mixin.options().stream()
                .anyMatch(m -> m.longestName().equals(o.longestName())))).toList();
    }

    /** The generated part of the page, between {@link #BEGIN} and {@link #END} inclusive. */
    String generate() {
        long implemented = rows.stream().filter(r -> !r.implemented().isEmpty() && r.pendingOn().isEmpty()).count();
        long refused = rows.stream().filter(r -> !r.refused().isEmpty()).count();
        long pending = rows.stream().filter(r -> !r.pendingOn().isEmpty()).count();
        long in606 = rows.stream().filter(r -> !r.option().in606().isEmpty()).count();
        long in2604 = rows.stream().filter(r -> !r.option().in2604().isEmpty()).count();
        StringBuilder md = new StringBuilder();
        md.append(BEGIN).append("\n\n");
        md.append("perftest's usage text lists ").append(rows.size()).append(" options for the eight tests: ")
                .append(in606).append(" in perftest 6.06 (the installed `ib_* --help`) and ").append(in2604)
                .append(" in perftest 26.04 (`usage()` in `src/perftest_parameters.c`). In jrdma ").append(implemented)
                .append(" are implemented with perftest's name on every test perftest offers them on, ").append(refused)
                .append(" are refused by name (exit status 2, one line saying what is missing) and ").append(pending)
                .append(" are not implemented yet (").append(pendingCounts()).append(").\n\n");
        md.append("The \"tests\" column lists where perftest offers an option (`*`: all eight). "
                + "\"perftest\" says which perftest lists it. jrdma's column is its option on those tests, "
                + "with its `--help` text; \"refused\" options are accepted by the parser and end the run at once; "
                + "\"not yet\" names the part of issue #36 that implements it.\n\n");
        md.append("| perftest | value | tests | perftest | jrdma | what jrdma does |\n| --- | --- | --- | --- | --- | --- |\n");
        for (Row r : rows) {
            Option o = r.option();
            md.append("| ").append(perftestNames(o)).append(" | ").append(o.takesValue() ? "yes" : "")
                    .append(" | ").append(tests(o.tests())).append(" | ").append(versions(o)).append(" | ")
                    .append(jrdmaColumn(r)).append(" | ").append(cell(whatItDoes(r))).append(" |\n");
        }
        md.append("\n### Refused by name\n\n");
        md.append("Hardware this machine lacks, and what jrdma does not drive. Where a device could offer it, "
                + "jrdma asks the device (`-d`) before refusing.\n\n");
        md.append("| perftest | tests | needs |\n| --- | --- | --- |\n");
        Map<String, List<Row>> byReason = new TreeMap<>();
        for (Row r : rows) {
            if (!r.refused().isEmpty()) {
                byReason.computeIfAbsent(description(r.refused().values().iterator().next()), k -> new ArrayList<>()).add(r);
            }
        }
        for (String[] c : CONNECTION_REFUSALS) {
            md.append("| `").append(c[0]).append("` | ")
                    .append(tests(c[1].equals("*") ? new LinkedHashSet<>(PerftestInventory.TESTS) : Set.of(c[1].split(","))))
                    .append(" | ").append(cell(c[2])).append(" |\n");
        }
        byReason.forEach((reason, rs) -> md.append("| ")
                .append(rs.stream().map(r -> "`" + r.option().longName() + "`").collect(Collectors.joining(", ")))
                .append(" | ").append(tests(rs.stream().flatMap(r -> r.refused().keySet().stream())
                        .collect(Collectors.toCollection(LinkedHashSet::new))))
                .append(" | ").append(cell(reason)).append(" |\n"));
        md.append("\n### Not implemented yet\n\n");
        if (pending == 0) {
            md.append("None: every option above is implemented or refused by name.\n");
        } else {
            md.append(pending).append(" options (").append(pendingCounts()).append("), each listed in the table "
                    + "above as \"not yet\":\n\n");
            md.append("| group | options |\n| --- | --- |\n");
        }
        Map<String, List<String>> byGroup = new LinkedHashMap<>();
        for (Row r : rows) {
            if (!r.pendingOn().isEmpty()) {
                String name = "`" + r.option().longName() + "`"
                        + (r.pendingOn().equals(r.option().tests()) ? "" : " on " + tests(r.pendingOn()));
                byGroup.computeIfAbsent(r.pending().group(), k -> new ArrayList<>()).add(name);
            }
        }
        byGroup.forEach((group, names) -> md.append("| ").append(group).append(" | ")
                .append(String.join(", ", names)).append(" |\n"));
        // jrdma's options that are not perftest's, and perftest's that jrdma also has on other tests.
        Map<String, Set<String>> own = new LinkedHashMap<>();
        Map<String, Set<String>> wider = new LinkedHashMap<>();
        Map<String, OptionSpec> specs = new LinkedHashMap<>();
        for (var e : commands.entrySet()) {
            for (OptionSpec s : e.getValue().options()) {
                if (s.hidden() || rows.stream().anyMatch(r -> r.implemented().containsValue(s))) {
                    continue;
                }
                boolean perftests = rows.stream().anyMatch(r -> List.of(s.names()).contains(r.option().longName()));
                (perftests ? wider : own).computeIfAbsent(s.longestName(), k -> new LinkedHashSet<>()).add(e.getKey());
                specs.putIfAbsent(s.longestName(), s);
            }
        }
        md.append("\n### jrdma's own options\n\n");
        md.append("Options of the eight tests that perftest does not have (see "
                + "[below](#differences-in-the-numbers-and-the-output)):\n\n");
        md.append("| jrdma | tests | what it does |\n| --- | --- | --- |\n");
        own.forEach((name, ts) -> md.append("| ").append(names(specs.get(name))).append(" | ").append(tests(ts))
                .append(" | ").append(cell(description(specs.get(name)))).append(" |\n"));
        if (!wider.isEmpty()) {
            md.append("\nperftest's options that jrdma also takes on tests whose usage text does not list them "
                    + "(perftest's getopt accepts them there too):\n\n");
            md.append("| jrdma | also on | what it does |\n| --- | --- | --- |\n");
            wider.forEach((name, ts) -> md.append("| ").append(names(specs.get(name))).append(" | ").append(tests(ts))
                    .append(" | ").append(cell(description(specs.get(name)))).append(" |\n"));
        }
        md.append("\n").append(END);
        return md.toString();
    }

    private String pendingCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Row r : rows) {
            if (!r.pendingOn().isEmpty()) {
                counts.merge(r.pending().group(), 1L, Long::sum);
            }
        }
        return counts.isEmpty() ? "none" : counts.entrySet().stream().map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", "));
    }

    private static String perftestNames(Option o) {
        StringBuilder s = new StringBuilder();
        if (o.shortName() != null) {
            s.append('`').append(o.shortName()).append("`, ");
        }
        s.append('`').append(o.longName()).append('`');
        if (o.getoptName() != null) {
            s.append(" (getopt takes `").append(o.getoptName()).append("`)");
        }
        if (o.usage606() != null) {
            s.append(" (6.06 prints `").append(o.usage606()).append("`)");
        }
        return s.toString();
    }

    private static String versions(Option o) {
        boolean old = !o.in606().isEmpty();
        boolean current = !o.in2604().isEmpty();
        return old && current ? "6.06, 26.04" : old ? "6.06 only" : "26.04";
    }

    /** jrdma's flag and, where jrdma differs between the tests, on which tests what holds. */
    private static String jrdmaColumn(Row r) {
        List<String> parts = new ArrayList<>();
        if (!r.implemented().isEmpty()) {
            OptionSpec first = r.implemented().values().iterator().next();
            parts.add(names(first) + (r.implemented().size() == r.option().tests().size() ? ""
                    : " on " + tests(r.implemented().keySet())));
        }
        if (!r.refused().isEmpty()) {
            parts.add("refused" + (r.refused().size() == r.option().tests().size() ? "" : " on " + tests(r.refused().keySet())));
        }
        if (!r.pendingOn().isEmpty()) {
            parts.add("not yet" + (r.pendingOn().size() == r.option().tests().size() ? "" : " on " + tests(r.pendingOn()))
                    + " (" + r.pending().group() + ")");
        }
        return String.join("; ", parts);
    }

    private String whatItDoes(Row r) {
        if (!r.implemented().isEmpty()) {
            // The --help text; where the tests' defaults differ, without the default.
            Set<String> texts = new LinkedHashSet<>();
            for (var e : r.implemented().entrySet()) {
                texts.add(description(commands.get(e.getKey()).findOption(e.getValue().longestName())));
            }
            if (texts.size() == 1) {
                return texts.iterator().next();
            }
            return texts.iterator().next().replaceAll("\\s*\\(default: [^()]*\\)", "") + " (the default depends on the test)";
        }
        if (!r.refused().isEmpty()) {
            return description(r.refused().values().iterator().next());
        }
        return "";
    }

    /** A compact name for a set of tests: all, the BW or latency tests, a verb's two, or jrdma's command names. */
    static String tests(Set<String> tests) {
        if (tests.containsAll(PerftestInventory.TESTS)) {
            return "*";
        }
        List<String> parts = new ArrayList<>();
        Set<String> rest = new LinkedHashSet<>();
        for (String t : PerftestInventory.TESTS) {
            if (tests.contains(t)) {
                rest.add(t);
            }
        }
        for (String kind : List.of("bw", "lat")) {
            Set<String> all = PerftestInventory.TESTS.stream().filter(t -> t.endsWith("_" + kind))
                    .collect(Collectors.toSet());
            if (rest.containsAll(all)) {
                parts.add("*-" + kind);
                rest.removeAll(all);
            }
        }
        for (String verb : List.of("send", "write", "read", "atomic")) {
            if (rest.contains(verb + "_lat") && rest.contains(verb + "_bw")) {
                parts.add(verb + "-*");
                rest.remove(verb + "_lat");
                rest.remove(verb + "_bw");
            }
        }
        rest.forEach(t -> parts.add(PerftestInventory.command(t)));
        return String.join(", ", parts);
    }

    /** The page with its generated part replaced by {@code generated}. */
    static String replaceIn(String page, String generated) {
        int begin = page.indexOf(BEGIN.substring(0, BEGIN.indexOf(':')));
        int end = page.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalStateException("docs/guide/" + PAGE + " lacks the markers " + BEGIN + " ... " + END);
        }
        return page.substring(0, begin) + generated + page.substring(end + END.length());
    }
}
