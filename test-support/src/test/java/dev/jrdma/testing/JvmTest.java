// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JvmTest {
    /** A child JVM's main: prints its arguments and whether native access is enabled for it. */
    public static final class Echo {
        public static void main(String[] args) {
            System.out.println(String.join(" ", args) + " " + Echo.class.getModule().isNativeAccessEnabled());
        }
    }

    @Test
    void theCommandRunsTheMainClassOnThisClassPathWithNativeAccess() throws Exception {
        List<String> c = new ArrayList<>(Jvm.command(Echo.class.getName()));
        c.addAll(List.of("a", "b"));
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child JVM did not end");
        assertEquals(0, p.exitValue(), out);
        assertEquals("a b true", out);
    }
}
