// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The RDMA device every device test uses: {@code $JRDMA_TEST_DEVICE}, or else the first by name
 * of the devices the kernel lists in /sys/class/infiniband (rxe0 in the Soft-RoCE VM). Read from
 * sysfs rather than through libibverbs so that the raw bindings' tests, the API's tests and the
 * command line's tests (which only pass a name on) all pick the same device the same way.
 */
public final class TestDevice {
    /** The environment variable that names the test device. */
    public static final String ENV = "JRDMA_TEST_DEVICE";
    /** The port the tests use: Soft-RoCE and single-port HCAs have only port 1. */
    public static final int PORT = 1;
    private static final Path SYSFS = Path.of("/sys/class/infiniband");

    private TestDevice() {}

    /** The test device's name; fails the test (AssertionError) when there is no such device. */
    public static String name() {
        return choose(kernelDevices(), System.getenv(ENV));
    }

    /** Names of the RDMA devices the kernel lists, sorted; empty when it lists none. */
    public static List<String> kernelDevices() {
        if (!Files.isDirectory(SYSFS)) {
            return List.of();
        }
        try (Stream<Path> devices = Files.list(SYSFS)) {
            return devices.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + SYSFS, e);
        }
    }

    /** {@code wanted} if it is among {@code devices}, the first device when {@code wanted} is unset. */
    static String choose(List<String> devices, String wanted) {
        if (devices.isEmpty()) {
            throw new AssertionError("no RDMA device found; device tests need one (scripts/test uses the"
                    + " Soft-RoCE VM when the host has none)");
        }
        if (wanted == null || wanted.isBlank()) {
            return devices.getFirst();
        }
        if (!devices.contains(wanted)) {
            throw new AssertionError(ENV + "=" + wanted + " is not a device here; devices: " + devices);
        }
        return wanted;
    }
}
