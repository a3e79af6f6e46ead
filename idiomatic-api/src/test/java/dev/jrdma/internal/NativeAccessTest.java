// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.Rdma;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.probe.NativeAccessProbe;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Without --enable-native-access, jrdma's first call names the flag to add, for the class path
 * and for the module path, before the JDK's own warning about a restricted call is printed.
 * Each case starts a JVM (NativeAccessProbe); the host needs libibverbs1, not a device.
 */
class NativeAccessTest {
    private static final String JDK_WARNING = "WARNING: A restricted method";

    private record Run(int exit, String out, String err) {}

    @Test
    void classPathWithoutFlagNamesAllUnnamed() throws Exception {
        Run r = run(List.of("-cp", System.getProperty("java.class.path")));
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.out().contains("start the JVM with --enable-native-access=ALL-UNNAMED (jrdma is on the class path"),
                r.toString());
        assertFalse(r.err().contains(JDK_WARNING), "jrdma must refuse before any restricted call: " + r);
    }

    @Test
    void classPathWithFlagRuns() throws Exception {
        Run r = run(List.of("--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path")));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("devices: "), r.toString());
        assertFalse(r.err().contains(JDK_WARNING), r.toString());
    }

    @Test
    void modulePathWithoutFlagNamesBothModules() throws Exception {
        Run r = run(modulePath(List.of()));
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.out().contains("start the JVM with --enable-native-access=dev.jrdma,dev.jrdma.bindings (jrdma is on"
                + " the module path"), r.toString());
        assertFalse(r.err().contains(JDK_WARNING), r.toString());
    }

    @Test
    void modulePathWithApiOnlyNamesTheBindings() throws Exception {
        Run r = run(modulePath(List.of("--enable-native-access=dev.jrdma")));
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.out().contains("start the JVM with --enable-native-access=dev.jrdma.bindings ("), r.toString());
    }

    @Test
    void modulePathWithBothModulesRuns() throws Exception {
        Run r = run(modulePath(List.of("--enable-native-access=dev.jrdma,dev.jrdma.bindings")));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("devices: "), r.toString());
        assertFalse(r.err().contains(JDK_WARNING), r.toString());
    }

    @Test
    void illegalNativeAccessAllowIsRespected() throws Exception {
        if (Runtime.version().feature() < 24) {
            return;   // the option exists from JDK 24 on; the build runs on 25
        }
        Run r = run(List.of("--illegal-native-access=allow", "-cp", System.getProperty("java.class.path")));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("devices: "), r.toString());
    }

    /** dev.jrdma and dev.jrdma.bindings as modules, the probe on the class path. */
    private static List<String> modulePath(List<String> flags) throws URISyntaxException {
        List<String> args = new ArrayList<>(flags);
        args.addAll(List.of("--module-path", location(Rdma.class) + File.pathSeparator + location(rdma_h.class),
                "--add-modules", "dev.jrdma", "-cp", location(NativeAccessProbe.class)));
        return args;
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static Run run(List<String> jvmArgs) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add(NativeAccessProbe.class.getName());
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("probe JVM did not finish within 120 s: " + command);
        }
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
