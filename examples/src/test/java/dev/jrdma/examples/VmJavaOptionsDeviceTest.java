// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A user's plain {@code java} in the Soft-RoCE VM compiles with C1 only (JDK 25's tiered JIT
 * crashes now and then under TCG; scripts/lib/jit.sh), through the {@code JDK_JAVA_OPTIONS} the
 * guest exports, and a JIT choice on its command line still wins. On RDMA hardware (no VM) the
 * same {@code java} keeps the JDK's own tiers.
 */
@DeviceTest
class VmJavaOptionsDeviceTest {
    private static final boolean IN_VM = System.getenv("JRDMA_IN_SOFTROCE_VM") != null;
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @Test
    void aPlainJavaRunsWithC1OnlyInTheVm() throws Exception {
        String out = run(JAVA, "-XX:+PrintFlagsFinal", "-version");
        if (IN_VM) {
            assertTrue(out.contains("NOTE: Picked up JDK_JAVA_OPTIONS: -XX:TieredStopAtLevel=1"), out);
            assertEquals("1", flag(out, "TieredStopAtLevel"));
            assertEquals("true", flag(out, "TieredCompilation"));
        } else {
            assertEquals("4", flag(out, "TieredStopAtLevel"), "outside the VM nothing is added");
        }
    }

    /** HotSpot ignores TieredStopAtLevel once tiers are off: a command line's -XX:-TieredCompilation gives C2 only. */
    @Test
    void theCommandLinesChoiceWins() throws Exception {
        String c2 = run(JAVA, "-XX:-TieredCompilation", "-XX:+PrintFlagsFinal", "-version");
        assertEquals("false", flag(c2, "TieredCompilation"));
        String tiers = run(JAVA, "-XX:TieredStopAtLevel=4", "-XX:+PrintFlagsFinal", "-version");
        assertEquals("4", flag(tiers, "TieredStopAtLevel"));
    }

    private static String flag(String printFlagsFinal, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*\\S+\\s+" + name + "\\s+=\\s+(\\S+)").matcher(printFlagsFinal);
        assertTrue(m.find(), name + " not in the output:\n" + printFlagsFinal);
        return m.group(1);
    }

    /** Runs {@code command}, its output in a file (a hung JVM cannot block a read), bounded by a timeout. */
    private static String run(String... command) throws IOException, InterruptedException {
        Path log = Files.createTempFile("vm-java-options", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not end in 120 s:\n" + Files.readString(log));
            }
            String text = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), text);
            return text;
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
