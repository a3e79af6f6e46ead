// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void aModulesClassesBecomeItsJarOnlyWhileNoClassIsNewer(@TempDir Path target) throws Exception {
        Path classes = Files.createDirectories(target.resolve("classes/dev/x")).getParent().getParent();
        Path cls = Files.writeString(classes.resolve("dev/x/A.class"), "a");
        Path jar = Files.writeString(target.resolve("jrdma-x-0.1.0-SNAPSHOT.jar"), "jar");
        Files.writeString(target.resolve("jrdma-x-0.1.0-SNAPSHOT-sources.jar"), "sources");
        Files.setLastModifiedTime(cls, FileTime.fromMillis(1_000_000));
        Files.setLastModifiedTime(jar, FileTime.fromMillis(2_000_000));
        assertEquals(Optional.of(jar), Jvm.freshJar(classes));
        Files.setLastModifiedTime(cls, FileTime.fromMillis(3_000_000));
        assertEquals(Optional.empty(), Jvm.freshJar(classes), "a class compiled after the jar was packaged");
    }

    @Test
    void anArchiveOnlyUnderEmulationAndForJarsOnly(@TempDir Path dir) throws Exception {
        String jars = Files.writeString(dir.resolve("a.jar"), "").toString() + File.pathSeparator
                + Files.writeString(dir.resolve("b.jar"), "");
        assertEquals(List.of(), Jvm.classDataSharing(jars, false));
        assertEquals(List.of(), Jvm.classDataSharing(jars + File.pathSeparator + dir, true));
        List<String> options = Jvm.classDataSharing(jars, true);
        assertEquals(3, options.size(), options.toString());
        assertTrue(options.get(0).matches("-XX:SharedArchiveFile=/var/tmp/jrdma-cds-\\d+/[0-9a-f]{16}\\.jsa"), options.get(0));
        assertEquals(List.of("-XX:+AutoCreateSharedArchive", "-Xlog:cds*=off,aot*=off"), options.subList(1, 3));
        assertEquals(options, Jvm.classDataSharing(jars, true), "one archive per class path");
        assertTrue(!options.equals(Jvm.classDataSharing(jars + File.pathSeparator + dir.resolve("c.jar"), true)));
    }
}
