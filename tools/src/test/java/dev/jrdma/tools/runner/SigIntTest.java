// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.Jvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SIGINT caught by {@link SigInt} in a JVM of its own (no device needed): the handler runs, the
 * program ends its loop and exits 0; after {@link SigInt#close} the JVM's default handling is back
 * (a second SIGINT ends the process with 130).
 */
class SigIntTest {
    /** The program: catch SIGINT, say "ready", wait for it, say "caught", restore, say "restored", wait. */
    public static void main(String[] args) throws Exception {
        java.util.concurrent.CountDownLatch caught = new java.util.concurrent.CountDownLatch(1);
        try (SigInt s = SigInt.catching(caught::countDown)) {
            System.out.println("ready");
            if (!caught.await(60, TimeUnit.SECONDS)) {
                System.out.println("no signal");
                System.exit(3);
            }
            System.out.println("caught");
        }
        System.out.println("restored");
        Thread.sleep(60_000);   // the second SIGINT ends the JVM before this does
        System.exit(4);
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sigintRunsTheHandlerThenTheDefaultIsBack() throws Exception {
        // perl gives the program SIGINT's default disposition, as a terminal's foreground job has.
        List<String> command = new ArrayList<>(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die $!"));
        command.addAll(Jvm.command(SigIntTest.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("ready", nextLine(r));
            kill(p);
            assertEquals("caught", nextLine(r));
            assertEquals("restored", nextLine(r));
            kill(p);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(130, p.exitValue(), "the JVM's own SIGINT handling: exit 128 + 2");
        } finally {
            p.destroyForcibly();
        }
    }

    /** The next line that is not the launcher's note about JDK_JAVA_OPTIONS. */
    private static String nextLine(BufferedReader r) throws Exception {
        String l;
        do {
            l = r.readLine();
        } while (l != null && l.startsWith("NOTE: Picked up"));
        return l;
    }

    private static void kill(Process p) throws Exception {
        Process k = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
        assertTrue(k.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, k.exitValue());
    }
}
