// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The launchers (the installed bin/jrdma and the checkout's scripts/jrdma) on machines with
 * fake Java homes: a runtime without bin/javac is enough, the java on PATH is found, and when
 * every Java is too old the message names what it found. The fake java prints its arguments
 * instead of starting a JVM.
 */
class LauncherTest {
    private static final Path MODULE = ModuleDir.PATH;
    private static final Path ROOT = MODULE.getParent();
    /** The flags jit.sh gives a runtime that takes them, as the launchers pass them. */
    private static final String WAKE_UP_FLAGS = "-XX:+UnlockDiagnosticVMOptions -XX:AsyncDeflationInterval=0"
            + " -XX:GuaranteedSafepointInterval=0";

    @TempDir
    Path tmp;

    private record Result(int code, String out, String err) {}

    /** A launcher laid out as installed (bin/jrdma, lib/sh/) or as in a built checkout (scripts/, tools/target/). */
    private Path launcher(String kind) throws IOException {
        Path home = tmp.resolve("home");
        Path shellLib;
        Path launcher;
        if (kind.equals("installed")) {
            launcher = home.resolve("bin/jrdma");
            shellLib = home.resolve("lib/sh");
            Files.createDirectories(launcher.getParent());
            Files.copy(MODULE.resolve("src/bin/jrdma"), launcher);
        } else {
            launcher = home.resolve("scripts/jrdma");
            shellLib = home.resolve("scripts/lib");
            Files.createDirectories(launcher.getParent());
            Files.copy(ROOT.resolve("scripts/jrdma"), launcher);
            Files.createDirectories(home.resolve("tools/target/lib"));
            Files.writeString(home.resolve("tools/target/jrdma-tools-0.0.1.jar"), "");
        }
        Files.createDirectories(shellLib);
        for (String f : List.of("jdk.sh", "jit.sh", "cds.sh")) {
            Files.copy(ROOT.resolve("scripts/lib/" + f), shellLib.resolve(f));
        }
        return launcher;
    }

    /**
     * A Java home with only bin/java (no javac), which answers -version as {@code feature}'s java
     * does and otherwise prints its arguments; with a release file when {@code release}.
     */
    private Path fakeJava(String name, int feature, boolean release) throws IOException {
        return fakeJava(name, feature, release, false);
    }

    /**
     * As above; when {@code refusesDeflationFlag}, the java fails as HotSpot does on a flag it
     * does not know (-XX:AsyncDeflationInterval), and logs every start with it to {@code starts}.
     */
    private Path fakeJava(String name, int feature, boolean release, boolean refusesDeflationFlag) throws IOException {
        Path home = tmp.resolve(name);
        Path java = home.resolve("bin/java");
        Files.createDirectories(java.getParent());
        String refuse = !refusesDeflationFlag ? "" : """
                case "$*" in *AsyncDeflationInterval*)
                    echo probe >> "$(dirname "$0")/starts"
                    echo "Unrecognized VM option 'AsyncDeflationInterval=0'" >&2; exit 1 ;;
                esac
                """;
        Files.writeString(java, """
                #!/bin/sh
                %s
                if [ "$1" = "-version" ]; then echo 'openjdk version "%d.0.1" 2025-10-21' >&2; exit 0; fi
                echo "fake java %d: $*"
                """.formatted(refuse, feature, feature));
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (release) {
            Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + feature + ".0.1\"\n");
        }
        return home;
    }

    private Result run(Path launcher, String javaHome, String pathFirst) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/bash", launcher.toString(), "devices");
        Map<String, String> env = pb.environment();
        env.remove("JAVA_HOME");
        env.remove("JRDMA_JAVA_OPTS");
        if (javaHome != null) {
            env.put("JAVA_HOME", javaHome);
        }
        // No java on PATH but the fake one (the host's /usr/bin has one): the commands the
        // launchers use, linked into a directory of their own; /usr/lib/jvm replaced by an empty one.
        env.put("PATH", (pathFirst == null ? "" : pathFirst + ":") + tools());
        Path jvms = tmp.resolve("jvm");
        Files.createDirectories(jvms);
        env.put("JRDMA_JVM_DIR", jvms.toString());
        Path out = tmp.resolve("out");
        Path err = tmp.resolve("err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher did not end");
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private String tools() throws IOException {
        Path bin = tmp.resolve("tools");
        if (!Files.isDirectory(bin)) {
            Files.createDirectories(bin);
            for (String c : List.of("bash", "sh", "sed", "readlink", "dirname", "grep", "cat", "id", "mkdir", "stat",
                    "sha256sum", "cut")) {
                Path found = Stream.of("/usr/bin/", "/bin/").map(d -> Path.of(d + c)).filter(Files::isExecutable)
                        .findFirst().orElseThrow(() -> new IllegalStateException("no " + c + " in /usr/bin or /bin"));
                Files.createSymbolicLink(bin.resolve(c), found);
            }
        }
        return bin.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void aRuntimeWithoutJavacAtJavaHomeRunsJrdma(String kind) throws Exception {
        Path launcher = launcher(kind);
        Path jre = fakeJava("jre25", 25, true);
        assertFalse(Files.exists(jre.resolve("bin/javac")));
        Result r = run(launcher, jre.toString(), null);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("fake java 25: --enable-native-access=ALL-UNNAMED"), r.out());
        assertTrue(r.out().strip().endsWith("dev.jrdma.tools.Jrdma devices"), r.out());
    }

    /** The monitor deflation thread's periodic wake-ups off a pinned, busy-polling test thread (jit.sh). */
    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void bothLaunchersTurnTheJvmsPeriodicWakeUpsOff(String kind) throws Exception {
        assertRanWithTheWakeUpFlags(run(launcher(kind), fakeJava("jre25", 25, true).toString(), null));
    }

    /** A later JVM that dropped the diagnostic flags still runs jrdma, without them, and says so. */
    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void aRuntimeThatRefusesTheWakeUpFlagsRunsWithoutThem(String kind) throws Exception {
        Path jre = fakeJava("jre27", 27, true, true);
        Result r = run(launcher(kind), jre.toString(), null);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("fake java 27: --enable-native-access=ALL-UNNAMED"), r.out());
        assertFalse(r.out().contains("AsyncDeflationInterval") || r.out().contains("GuaranteedSafepointInterval"), r.out());
        assertTrue(r.err().contains("jrdma: note: the Java runtime at " + jre + " refuses " + WAKE_UP_FLAGS
                + "; running without them"), r.err());
        assertEquals(List.of("probe"), Files.readAllLines(jre.resolve("bin/starts")));
    }

    /** A runtime other than 25 is asked first, and given the flags when it takes them. */
    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void anotherRuntimeThatTakesTheWakeUpFlagsGetsThem(String kind) throws Exception {
        Result r = run(launcher(kind), fakeJava("jre23", 23, true).toString(), null);
        assertRanWithTheWakeUpFlags(r);
        assertEquals("", r.err());
    }

    private static void assertRanWithTheWakeUpFlags(Result r) {
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(" " + WAKE_UP_FLAGS + " "), r.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void theJavaOnPathRunsJrdmaWhenJavaHomeIsUnset(String kind) throws Exception {
        Path launcher = launcher(kind);
        // No release file: the version comes from java -version.
        Path jre = fakeJava("jre26", 26, false);
        Result r = run(launcher, null, jre.resolve("bin").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("fake java 26: "), r.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void tooOldJavasAreNamed(String kind) throws Exception {
        Path launcher = launcher(kind);
        Path old = fakeJava("jre17", 17, true);
        Path older = fakeJava("jre11", 11, false);
        Result r = run(launcher, old.toString(), older.resolve("bin").toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("jrdma needs Java 22 or newer (a runtime is enough); found only:\n"), r.err());
        assertTrue(r.err().contains("JAVA_HOME=" + old + ": Java 17\n"), r.err());
        assertTrue(r.err().contains("java on PATH (" + older + "): Java 11\n"), r.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"installed", "checkout"})
    void noJavaAtAllSaysWhereItLooked(String kind) throws Exception {
        Result r = run(launcher(kind), null, null);
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.err().startsWith("jrdma needs Java 22 or newer (a runtime is enough); found none at JAVA_HOME "
                + "(unset), on PATH or under "), r.err());
    }
}
