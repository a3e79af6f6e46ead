// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.testing.TestDevice;
import java.time.Duration;

/** The device the device tests use ({@link TestDevice}) as an {@link RdmaDevice}, and their bounds. */
final class TestDevices {
    static final int PORT = Context.FIRST_PORT;
    /** Under TCG emulation a round trip can take milliseconds; this bounds every completion wait. */
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    private TestDevices() {}

    static RdmaDevice device() {
        String name = TestDevice.name();
        return Rdma.device(name).orElseThrow(() -> new AssertionError("the kernel lists " + name
                + " but libibverbs does not: " + Rdma.devices()));
    }

    /** The entry the library picks by default: the test device's RoCE v2 IPv4 GID, or IB's first. */
    static GidEntry gid(Context context) {
        return context.defaultGid(PORT);
    }
}
