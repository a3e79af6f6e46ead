// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.shim.LibraryInfo;
import java.nio.file.Path;

/** The versions a device test's expectations depend on: rdma-core's (from the mapped libibverbs) and the kernel's. */
final class ProviderVersion {
    private ProviderVersion() {}

    /** rdma-core's release, e.g. 44 for libibverbs.so.1.14.44.0; fails the test when it cannot be told. */
    static int rdmaCore() {
        LibraryInfo.loadVerbs();
        Path lib = LibraryInfo.loaded("libibverbs").orElseThrow(() -> new AssertionError("libibverbs is not mapped"));
        String[] parts = lib.getFileName().toString().split("\\.");
        if (parts.length < 6) {
            throw new AssertionError("no rdma-core release in " + lib);
        }
        return Integer.parseInt(parts[4]);
    }

    /** The running kernel's major * 100 + minor, e.g. 601 for 6.1.0-56-amd64. */
    static int kernel() {
        String[] parts = System.getProperty("os.version").split("[.-]");
        return Integer.parseInt(parts[0]) * 100 + Integer.parseInt(parts[1]);
    }
}
