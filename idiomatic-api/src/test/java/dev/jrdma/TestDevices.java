// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The device the device tests use: $JRDMA_TEST_DEVICE or the first one. */
final class TestDevices {
    static final int PORT = Context.FIRST_PORT;
    /** Under TCG emulation a round trip can take milliseconds; this bounds every completion wait. */
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private TestDevices() {}

    static RdmaDevice device() {
        List<RdmaDevice> devices = Rdma.devices();
        if (devices.isEmpty()) {
            throw new AssertionError("no RDMA device found; device tests need one (scripts/test uses the Soft-RoCE"
                    + " VM when the host has none)");
        }
        Optional<String> wanted = Optional.ofNullable(System.getenv("JRDMA_TEST_DEVICE")).filter(s -> !s.isBlank());
        if (wanted.isEmpty()) {
            return devices.getFirst();
        }
        return devices.stream().filter(d -> d.name().equals(wanted.get())).findFirst()
                .orElseThrow(() -> new AssertionError("JRDMA_TEST_DEVICE=" + wanted.get() + " is not among "
                        + devices));
    }

    /** The entry the library picks by default: the test device's RoCE v2 IPv4 GID, or IB's first. */
    static GidEntry gid(Context context) {
        return context.defaultGid(PORT);
    }
}
