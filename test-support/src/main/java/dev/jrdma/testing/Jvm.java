// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.nio.file.Path;
import java.util.List;

/** The command line of a java process that a test starts with its own JVM's class path. */
public final class Jvm {
    private Jvm() {}

    /**
     * This JVM's launcher, native access for the class path, C1 only (C2 costs more than it saves
     * in a short run under emulation), the class path and {@code mainClass}.
     */
    public static List<String> command(String mainClass) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), mainClass);
    }
}
