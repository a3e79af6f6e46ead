// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The jshell session of docs/guide/jshell.md, typed into {@code scripts/jshell} as a learner
 * types it, line by line, and what jshell answers compared with what the page shows: the same
 * answers in the same order, numbers aside (queue pair numbers, PSNs, GUIDs differ between
 * runs), and no exception. A page that shows an answer jshell does not give fails, and so does a
 * session that no longer runs.
 */
@DeviceTest
class JshellSessionDeviceTest {
    private static final String MARKER = "<!-- jshell session:";
    private static final String PROMPT = "jshell> ";

    @Test
    void theGuidesSessionRunsAndAnswersAsShown() throws Exception {
        Path root = root();
        List<Step> page = session(Files.readAllLines(root.resolve("docs/guide/jshell.md"), StandardCharsets.UTF_8));
        assertTrue(page.size() > 20, "the page's session: " + page);
        Path input = Files.createTempFile("jshell-session", ".in");
        Path output = Files.createTempFile("jshell-session", ".out");
        Path errors = Files.createTempFile("jshell-session", ".err");
        try {
            StringBuilder typed = new StringBuilder();
            for (Step s : page) {
                typed.append(s.input()).append('\n');
            }
            Files.writeString(input, typed + "/exit\n");
            Process p = new ProcessBuilder(root.resolve("scripts/jshell").toString()).directory(root.toFile())
                    .redirectInput(input.toFile()).redirectOutput(output.toFile()).redirectError(errors.toFile())
                    .start();
            if (!p.waitFor(900, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("jshell did not end in 900 s:\n" + Files.readString(output));
            }
            String out = Files.readString(output, StandardCharsets.UTF_8);
            String all = out + "\n--- stderr:\n" + Files.readString(errors, StandardCharsets.UTF_8);
            System.out.println("JshellSessionDeviceTest: jshell's output\n" + all);
            assertEquals(0, p.exitValue(), all);
            assertFalse(out.contains("|  Exception") || out.contains("|  Error") || out.contains("|  Unresolved"),
                    "a line failed:\n" + all);
            List<List<String>> answers = answers(out);
            assertEquals(page.size() + 1, answers.size(), "one answer per line typed, and /exit's:\n" + all);
            for (int i = 0; i < page.size(); i++) {
                Step s = page.get(i);
                List<String> got = answers.get(i);
                assertEquals(s.output().size(), got.size(), "answer to `" + s.input() + "`: " + got + "\n" + all);
                for (int j = 0; j < got.size(); j++) {
                    assertTrue(same(s.output().get(j), got.get(j)), "answer to `" + s.input() + "`: the page shows\n  "
                            + s.output().get(j) + "\njshell answered\n  " + got.get(j));
                }
            }
        } finally {
            Files.deleteIfExists(input);
            Files.deleteIfExists(output);
            Files.deleteIfExists(errors);
        }
    }

    /** One line typed and the non-blank lines of jshell's answer, as the page shows them. */
    record Step(String input, List<String> output) {}

    /** The page's session: the fenced block after the marker, "jshell> " lines and the answers under them. */
    static List<Step> session(List<String> lines) {
        int i = 0;
        while (i < lines.size() && !lines.get(i).startsWith(MARKER)) {
            i++;
        }
        assertTrue(i + 1 < lines.size() && lines.get(i + 1).startsWith("```"), "docs/guide/jshell.md has no marked session");
        List<Step> steps = new ArrayList<>();
        for (i += 2; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
            String line = lines.get(i);
            if (line.startsWith(PROMPT)) {
                steps.add(new Step(line.substring(PROMPT.length()), new ArrayList<>()));
            } else if (!line.isBlank()) {
                assertFalse(steps.isEmpty(), "an answer before the first prompt: " + line);
                steps.getLast().output().add(line);
            }
        }
        return steps;
    }

    /** What jshell printed after each prompt (piped input is not echoed), without blank lines. */
    static List<List<String>> answers(String out) {
        List<List<String>> answers = new ArrayList<>();
        String[] parts = out.split(PROMPT, -1);
        for (int k = 1; k < parts.length; k++) {   // parts[0]: the welcome text
            List<String> lines = new ArrayList<>();
            for (String l : parts[k].split("\n")) {
                if (!l.isBlank()) {
                    lines.add(l.stripTrailing());
                }
            }
            answers.add(lines);
        }
        return answers;
    }

    /**
     * Whether jshell's line is the page's, numbers aside. jshell shortens a long value to its
     * first and last characters around " ... ", and where it cuts depends on the numbers' widths:
     * such a line is compared up to its value.
     */
    static boolean same(String shown, String answered) {
        if (shown.contains(" ... ") || answered.contains(" ... ")) {
            int a = shown.indexOf("==>");
            int b = answered.indexOf("==>");
            return a >= 0 && a == b && shown.substring(0, a).equals(answered.substring(0, b));
        }
        return numbersAside(shown).equals(numbersAside(answered));
    }

    private static String numbersAside(String s) {
        return s.replaceAll("0x[0-9a-fA-F]+", "0x#").replaceAll("-?\\d+", "#");
    }

    private static Path root() throws Exception {
        Path classes = Path.of(JshellSessionDeviceTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return classes.getParent().getParent().getParent();   // examples/target/test-classes
    }
}
