// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The running kernel, for device tests whose expected behaviour differs between the kernels CI
 * boots (6.1 and 6.12: rxe's opcodes and fixes differ), e.g.
 * {@code if (Kernel.atLeast(6, 12)) { ...works... } else { ...refused... }}.
 */
public final class Kernel {
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");

    private Kernel() {}

    /** {@return the running kernel's release, e.g. {@code 6.12.117+deb12-amd64}} */
    public static String release() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return whether the running kernel is {@code major.minor} or newer} */
    public static boolean atLeast(int major, int minor) {
        Matcher m = VERSION.matcher(release());
        if (!m.find()) {
            throw new IllegalStateException("kernel release without a version: " + release());
        }
        int maj = Integer.parseInt(m.group(1));
        return maj > major || maj == major && Integer.parseInt(m.group(2)) >= minor;
    }
}
