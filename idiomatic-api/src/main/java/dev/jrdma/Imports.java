// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What names the device behind a uverbs file descriptor, for the messages of {@link Context#importContext(int)}. */
final class Imports {
    private Imports() {}

    /**
     * {@return the RDMA device whose uverbs file {@code fd} is open on, e.g. {@code rxe0}, from
     * /proc/self/fd and /sys/class/infiniband_verbs (as libibverbs matches it, by device file);
     * a description of the fd when that cannot be read}
     */
    static String deviceOf(int fd) {
        try {
            Path file = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd));
            Path ibdev = Path.of("/sys/class/infiniband_verbs", file.getFileName().toString(), "ibdev");
            return Files.readString(ibdev).strip();
        } catch (IOException | RuntimeException e) {
            return "an unknown device";
        }
    }
}
