// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** The command line of a java process that a test starts from its own JVM's class path. */
public final class Jvm {
    private static final Path CDS_DIR = Path.of("/var/tmp");

    private Jvm() {}

    /**
     * This JVM's launcher, native access for the class path, C1 only (C2 costs more than it saves
     * in a short run under emulation), this JVM's class path and {@code mainClass}.
     */
    public static List<String> command(String mainClass) {
        return command(mainClass, System.getProperty("java.class.path"));
    }

    /**
     * A program of the main sources as a user runs it, from the built jars: this JVM's class path
     * without its test-classes, each module's target/classes replaced by the module's jar when
     * that jar is newer than every class in it. Under qemu TCG, with jars only, the JVM also maps
     * a class-data archive that the first such JVM writes (as scripts/lib/cds.sh does for
     * scripts/jrdma): a JVM's start there is mostly class loading.
     */
    public static List<String> program(String mainClass) {
        List<String> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (p.endsWith(Path.of("target", "test-classes"))) {
                continue;
            }
            path.add(p.endsWith(Path.of("target", "classes")) ? freshJar(p).map(Path::toString).orElse(entry) : entry);
        }
        return command(mainClass, String.join(File.pathSeparator, path));
    }

    private static List<String> command(String mainClass, String classPath) {
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1"));
        c.addAll(classDataSharing(classPath, underEmulation()));
        c.addAll(List.of("-cp", classPath, mainClass));
        return c;
    }

    /** The module's jar beside {@code classes} (no classifier), if no class is newer than it. */
    static Optional<Path> freshJar(Path classes) {
        try (Stream<Path> jars = Files.list(classes.getParent());
                Stream<Path> compiled = Files.walk(classes)) {
            Optional<Path> jar = jars.filter(j -> j.getFileName().toString().matches(".+-\\d[^-]*(-SNAPSHOT)?\\.jar"))
                    .findFirst();
            if (jar.isEmpty()) {
                return jar;
            }
            long built = Files.getLastModifiedTime(jar.get()).toMillis();
            boolean stale = compiled.filter(Files::isRegularFile).anyMatch(f -> modified(f) > built);
            return stale ? Optional.empty() : jar;
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static long modified(Path f) {
        try {
            return Files.getLastModifiedTime(f).toMillis();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean underEmulation() {
        try {
            return Files.readString(Path.of("/proc/cpuinfo")).contains("QEMU TCG");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The archive options for {@code classPath}, or none: outside emulation, with a directory on
     * the path (the JVM archives jars only, and its dump then fails the exit status), or when the
     * archive's directory is not this user's alone (an archive is code the JVM maps). The JVMs
     * started on node 2 find the directory that scripts/vm/guest-stage made there.
     */
    static List<String> classDataSharing(String classPath, boolean emulated) {
        if (!emulated || Stream.of(classPath.split(File.pathSeparator)).anyMatch(e -> Files.isDirectory(Path.of(e)))) {
            return List.of();
        }
        try {
            int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            Path dir = CDS_DIR.resolve("jrdma-cds-" + uid);
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (!Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(Files.getOwner(Path.of("/proc/self")).getName())
                    || !PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS))
                            .equals("rwx------")) {
                return List.of();
            }
            String name = HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(classPath.getBytes(java.nio.charset.StandardCharsets.UTF_8))).substring(0, 16);
            return List.of("-XX:SharedArchiveFile=" + dir.resolve(name + ".jsa"), "-XX:+AutoCreateSharedArchive",
                    "-Xlog:cds*=off,aot*=off");
        } catch (IOException | java.security.NoSuchAlgorithmException | RuntimeException e) {
            return List.of();
        }
    }
}
