// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import dev.jrdma.docs.ExercisesScan.Exercise;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes docs/guide/coverage.md: every function of rdma-core's application headers
 * ({@link HeaderFunctions}), the API member that reaches it ({@code @Reaches}, {@link ReachesScan})
 * and the device test that shows it working on Soft-RoCE or asserts Soft-RoCE's refusal
 * ({@code @Exercises}, {@link ExercisesScan}). {@link #problems} lists what makes the accounting
 * wrong; CoverageTest fails on any.
 */
final class Coverage {
    static final String PAGE = "coverage.md";

    /** The goals of issue #35: functions reached through the typed API, per header. */
    static final Map<String, Integer> TARGETS =
            Map.of("infiniband/verbs.h", 140, "rdma/rdma_cma.h", 35, "rdma/rdma_verbs.h", 15, "rdma/rsocket.h", 27);

    /** The kernels CI boots: every device test runs on the first, the {@code @EveryKernel} ones on both. */
    static final String DEFAULT_KERNEL = "6.1";
    static final String OTHER_KERNEL = "6.12";
    private static final Comparator<String> KERNEL_ORDER =
            Comparator.comparing(k -> List.of(DEFAULT_KERNEL, OTHER_KERNEL).indexOf(k));

    /**
     * Device test classes that CI runs on {@link #DEFAULT_KERNEL} only and that passed in full on
     * {@link #OTHER_KERNEL} in a run by hand, with its date:
     * {@code JRDMA_TEST_CLASS='dev.jrdma.(A|B)' scripts/softroce --kernel 6.12 -- scripts/device-tests}.
     * CI's second-kernel step runs only the {@code @EveryKernel} tests: the classes of issue #35's
     * groups are all {@code @EveryKernel} (~4 minutes of tests on 6.12 under emulation); a class
     * whose behaviour differs between the kernels must be too. Run these again, and update the
     * date, when rxe's kernel or the tests change.
     */
    static final Map<String, String> PASSED_BY_HAND_ON_OTHER_KERNEL = Map.ofEntries(
            Map.entry("AsyncEventDeviceTest", "2026-11-26"),
            Map.entry("CompletionVectorDeviceTest", "2026-11-26"),
            Map.entry("LifetimeDeviceTest", "2026-11-26"),
            Map.entry("PreparedRequestDeviceTest", "2026-11-26"));

    /** What one header's accounting adds up to. */
    record Counts(String header, int functions, int reached, int works, int refused, int target) {
        int notReached() {
            return functions - reached;
        }

        String verdict() {
            return reached >= target ? "target met" : "below target by " + (target - reached);
        }
    }

    private final Map<String, SortedSet<String>> declared;
    private final Map<String, SortedSet<String>> counted;
    private final Map<String, SortedSet<String>> reachedBy;
    private final List<Exercise> exercises;
    private final Map<String, String> byHand;

    Coverage(Map<String, SortedSet<String>> declared, Map<String, SortedSet<String>> reachedBy,
            List<Exercise> exercises, Map<String, String> byHand) {
        this.declared = declared;
        this.counted = HeaderFunctions.counted(declared);
        this.reachedBy = reachedBy;
        this.exercises = exercises;
        this.byHand = byHand;
    }

    Coverage(Map<String, SortedSet<String>> declared, Map<String, SortedSet<String>> reachedBy,
            List<Exercise> exercises) {
        this(declared, reachedBy, exercises, Map.of());
    }

    /** The coverage of this checkout: the installed headers, the API's classes, the tests' sources. */
    static Coverage current() throws IOException, InterruptedException {
        return new Coverage(HeaderFunctions.declared(), ReachesScan.scan(), ExercisesScan.scan(Guide.ROOT),
                PASSED_BY_HAND_ON_OTHER_KERNEL);
    }

    Map<String, SortedSet<String>> counted() {
        return counted;
    }

    List<Counts> counts() {
        List<Counts> out = new ArrayList<>();
        counted.forEach((header, functions) -> {
            int reached = 0;
            int works = 0;
            int refused = 0;
            for (String f : functions) {
                if (reachedBy.containsKey(f)) {
                    reached++;
                    if (tests(f, false).isEmpty()) {
                        refused += tests(f, true).isEmpty() ? 0 : 1;
                    } else {
                        works++;
                    }
                }
            }
            out.add(new Counts(header, functions.size(), reached, works, refused, TARGETS.get(header)));
        });
        return out;
    }

    /** The tests that show {@code function} working ({@code refusal} false) or refused (true). */
    private List<Exercise> tests(String function, boolean refusal) {
        return exercises.stream().filter(e -> e.isRefusal() == refusal && e.functions().contains(function)).toList();
    }

    /**
     * {@return what is wrong with the accounting, one line each} A name in {@code @Reaches} or
     * {@code @Exercises} that is no counted header function (a typo, or an internal alias); a
     * function the API reaches with no test saying whether it works; a test of a function no
     * API member reaches.
     */
    List<String> problems() {
        SortedSet<String> all = new TreeSet<>();
        counted.values().forEach(all::addAll);
        SortedSet<String> internal = new TreeSet<>();
        declared.values().forEach(internal::addAll);
        internal.removeAll(all);
        List<String> out = new ArrayList<>();
        reachedBy.forEach((function, members) -> {
            if (!all.contains(function)) {
                out.add("@Reaches on " + members + " names " + function + ", which is "
                        + (internal.contains(function) ? "an internal or *_str function, not counted" : "in no header"));
            } else if (tests(function, false).isEmpty() && tests(function, true).isEmpty()) {
                out.add(function + " is reached by " + members + " but no device test has @Exercises for it: "
                        + "its state on Soft-RoCE is unknown");
            }
        });
        byHand.keySet().stream().sorted().forEach(className -> {
            List<Exercise> of = exercises.stream().filter(e -> e.className().equals(className)).toList();
            if (of.isEmpty()) {
                out.add("PASSED_BY_HAND_ON_OTHER_KERNEL names " + className + ", which has no @Exercises");
            } else if (of.stream().allMatch(Exercise::everyKernel)) {
                out.add("PASSED_BY_HAND_ON_OTHER_KERNEL names " + className + ", which CI runs on " + OTHER_KERNEL
                        + " (@EveryKernel): drop the entry");
            }
        });
        for (Exercise e : exercises) {
            if (!e.kernel().isEmpty() && !List.of(DEFAULT_KERNEL, OTHER_KERNEL).contains(e.kernel())) {
                out.add("@Exercises on " + e.file() + " " + e.name() + " names kernel " + e.kernel()
                        + "; CI boots " + DEFAULT_KERNEL + " and " + OTHER_KERNEL);
            } else if (e.kernel().equals(OTHER_KERNEL) && !e.everyKernel()) {
                out.add("@Exercises on " + e.file() + " " + e.name() + " describes kernel " + OTHER_KERNEL
                        + ", but the test is not @EveryKernel, so CI never runs it there");
            }
            for (String function : e.functions()) {
                if (!all.contains(function)) {
                    out.add("@Exercises on " + e.file() + " " + e.name() + " names " + function + ", which is "
                            + (internal.contains(function) ? "an internal or *_str function, not counted" : "in no header"));
                } else if (!reachedBy.containsKey(function)) {
                    out.add("@Exercises on " + e.file() + " " + e.name() + " names " + function
                            + ", which no API member has in its @Reaches");
                }
            }
        }
        return out;
    }

    /** The page's full text. */
    String generate() {
        StringBuilder md = new StringBuilder();
        md.append("# Coverage of the verbs surface\n\n");
        md.append("<!-- Generated from the installed rdma-core headers, the API's @Reaches and the tests' @Exercises "
                + "by docs/src/test/java/dev/jrdma/docs/Coverage.java. Do not edit: run scripts/docs-sync. -->\n\n");
        md.append("Every public function of rdma-core's three application headers, the jrdma API member that "
                + "reaches it, and the device test that shows it working on Soft-RoCE or asserts that Soft-RoCE "
                + "refuses it. A host test generates this page from the headers installed by `scripts/setup` "
                + "(rdma-core 44 on Debian 12), the `@Reaches` annotations of the API and the `@Exercises` "
                + "annotations of the tests, and fails when the committed page differs, when an annotation names "
                + "a function the headers do not have, or when the API reaches a function that no test "
                + "exercises. A new rdma-core release that adds a function changes this page.\n\n");
        md.append("Counted: every function the header declares or defines (exported or `static inline`), except "
                + "the internal aliases its macros call and the `*_str` helpers, whose names the API's enums "
                + "carry; each header's section lists them.\n\n");
        md.append("| header | functions | reached by the API | works on Soft-RoCE | refused on Soft-RoCE | "
                + "not reached | target (reached) |\n");
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Counts c : counts()) {
            md.append("| [").append(c.header()).append("](#").append(GuideTest.slug(c.header())).append(") | ")
                    .append(c.functions()).append(" | ").append(c.reached()).append(" | ").append(c.works())
                    .append(" | ").append(c.refused()).append(" | ").append(c.notReached()).append(" | ")
                    .append(c.target()).append(": ").append(c.verdict()).append(" |\n");
        }
        md.append("\nThe states:\n\n");
        md.append("- **works on Soft-RoCE**: the named device test calls the function through the API and "
                + "checks its effect.\n");
        md.append("- **refused on Soft-RoCE**: the API has the typed method, Soft-RoCE (rxe) does not implement "
                + "the function, and the named device test asserts the one clear exception it throws "
                + "(device, capability, errno).\n");
        md.append("- **not reached**: no API member calls the function yet.\n\n");
        md.append("The kernels column says where CI runs the tests: every device test runs on Linux ")
                .append(DEFAULT_KERNEL).append(" (`scripts/softroce`), and those marked `@EveryKernel` also on ")
                .append(OTHER_KERNEL).append(" (`scripts/softroce --kernel ").append(OTHER_KERNEL)
                .append("`), whose rxe differs. Where the outcome differs by kernel, the state names the kernel it holds on. ")
                .append("`").append(OTHER_KERNEL).append(" (by hand, date)` marks a test CI runs on ").append(DEFAULT_KERNEL)
                .append(" only that passed on ").append(OTHER_KERNEL).append(" in a run by hand on that date ")
                .append("(`Coverage.PASSED_BY_HAND_ON_OTHER_KERNEL` lists the classes and says how to run them).\n");
        md.append("\nSome misuse jrdma refuses in Java before the provider is asked, with an exception naming what "
                + "was wrong where the provider's errno would not: a post in RESET (`IllegalStateException`; rxe "
                + "answers EINVAL, after queueing the request), an atomic on an unaligned target "
                + "(`IllegalArgumentException`; librxe answers EINVAL), a completion vector the device lacks "
                + "(`IllegalArgumentException`; rxe answers EINVAL). `MisuseRefusalsDeviceTest` checks both answers "
                + "for each.\n");
        counted.forEach((header, functions) -> section(md, header, functions));
        return md.toString();
    }

    private void section(StringBuilder md, String header, SortedSet<String> functions) {
        md.append("\n## ").append(header).append("\n\n");
        SortedSet<String> left = new TreeSet<>(declared.get(header));
        left.removeAll(functions);
        md.append(functions.size()).append(" functions");
        if (!left.isEmpty()) {
            md.append("; not counted: ");
            md.append(String.join(", ", left.stream().map(f -> "`" + f + "`").toList()));
        }
        md.append(".\n\n");
        md.append("| function | reached by | state | tested by | kernels |\n");
        md.append("| --- | --- | --- | --- | --- |\n");
        for (String f : functions) {
            SortedSet<String> members = reachedBy.get(f);
            md.append("| `").append(f).append("` | ");
            if (members == null) {
                md.append("| not reached | | |\n");
                continue;
            }
            md.append(String.join(", ", members.stream().map(m -> "`" + m + "`").toList())).append(" | ");
            List<Exercise> works = tests(f, false);
            List<Exercise> refusals = tests(f, true);
            List<String> states = new ArrayList<>();
            if (!works.isEmpty()) {
                states.add("works on Soft-RoCE" + on(works));
            }
            Map<String, List<Exercise>> byReason = new TreeMap<>();
            refusals.forEach(e -> byReason.computeIfAbsent(e.refused(), r -> new ArrayList<>()).add(e));
            byReason.forEach((reason, tests) -> states.add("refused on Soft-RoCE" + on(tests) + ": " + cell(reason)));
            md.append(String.join("; ", states)).append(" | ");
            List<Exercise> all = new ArrayList<>(works);
            all.addAll(refusals);
            Map<String, Exercise> byName = new TreeMap<>();
            all.forEach(e -> byName.putIfAbsent(e.name(), e));
            md.append(String.join(", ", byName.values().stream().map(Coverage::link).toList())).append(" | ");
            SortedSet<String> kernels = new TreeSet<>(KERNEL_ORDER);
            all.forEach(e -> kernels.addAll(kernels(e)));
            md.append(String.join(", ", kernels)).append(byHand(all, kernels)).append(" |\n");
        }
    }

    /** The kernels CI checks this state on. */
    private static List<String> kernels(Exercise e) {
        if (!e.kernel().isEmpty()) {
            return List.of(e.kernel());
        }
        return e.everyKernel() ? List.of(DEFAULT_KERNEL, OTHER_KERNEL) : List.of(DEFAULT_KERNEL);
    }

    /**
     * ", 6.12 (by hand, DATE)" when CI does not check this state on {@link #OTHER_KERNEL} but a
     * test of it passed there by hand ({@link #PASSED_BY_HAND_ON_OTHER_KERNEL} in {@link #current()};
     * the latest date).
     */
    private String byHand(List<Exercise> tests, SortedSet<String> inCi) {
        if (inCi.contains(OTHER_KERNEL)) {
            return "";
        }
        return tests.stream().filter(e -> e.kernel().isEmpty())
                .map(e -> byHand.get(e.className())).filter(d -> d != null)
                .max(Comparator.naturalOrder()).map(d -> ", " + OTHER_KERNEL + " (by hand, " + d + ")").orElse("");
    }

    /** " (Linux 6.12)" when every one of the tests states the outcome for one kernel only. */
    private static String on(List<Exercise> tests) {
        if (tests.stream().anyMatch(e -> e.kernel().isEmpty())) {
            return "";
        }
        SortedSet<String> kernels = new TreeSet<>(KERNEL_ORDER);
        tests.forEach(e -> kernels.add(e.kernel()));
        return " (Linux " + String.join(", ", kernels) + ")";
    }

    private static String link(Exercise e) {
        return "[" + e.name() + "](../../" + e.file().toString().replace('\\', '/') + ")";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
