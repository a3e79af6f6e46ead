// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import dev.jrdma.bindings.shim.LibraryInfo;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Where a --json or --csv report came from, so that reports of different runs, builds and
 * machines can be told apart and compared with care.
 *
 * @param schemaVersion the report format's version ({@link #SCHEMA_VERSION})
 * @param jrdmaVersion  the jrdma tools jar's version, or "development build" (classes, no jar)
 * @param startTime     when the command started (UTC, milliseconds)
 * @param java          the JVM: Runtime.version() and its VM name
 * @param libibverbs    the libibverbs file this process mapped, symlinks resolved, as
 *                      /proc/self/maps shows it: its name carries rdma-core's release
 *                      (libibverbs.so.1.14.44.0 is rdma-core 44's); "not loaded" otherwise
 */
public record Provenance(int schemaVersion, String jrdmaVersion, Instant startTime, String java, String libibverbs) {
    /**
     * The version of the --json document's and the --csv table's layout: raised when a field or
     * column is renamed or removed or changes its meaning, not when one is added. 1: the first
     * layout that says its version (fields of this record added to the reports).
     */
    public static final int SCHEMA_VERSION = 1;

    /** This process's provenance for a command started at {@code start}. */
    public static Provenance of(Instant start) {
        String v = Provenance.class.getPackage().getImplementationVersion();
        return new Provenance(SCHEMA_VERSION, v == null ? "development build" : v, start.truncatedTo(ChronoUnit.MILLIS),
                Runtime.version() + " (" + System.getProperty("java.vm.name") + ")",
                LibraryInfo.loaded("libibverbs").map(Object::toString).orElse("not loaded"));
    }
}
