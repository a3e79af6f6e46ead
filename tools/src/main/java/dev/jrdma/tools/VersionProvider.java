// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.bindings.shim.LibraryInfo;
import dev.jrdma.tools.perftest.PerftestVersion;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code jrdma --version}: the jar's version, the perftest protocol it speaks, the JVM, the
 * rdma-core the bindings were generated from and the libibverbs this process loaded (a
 * mismatch between the last two is the first thing to check in a bug report).
 */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        List<String> lines = new ArrayList<>(List.of(
                "jrdma " + (v == null ? "(development build)" : v),
                "perftest out-of-band protocol " + PerftestVersion.ANNOUNCED + " (interoperates with perftest >= 5.70)",
                "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ", " + System.getProperty("java.home") + ")",
                "bindings generated from " + LibraryInfo.generatedFrom()));
        lines.add("libibverbs loaded: " + loadedLibibverbs());
        return lines.toArray(String[]::new);
    }

    private static String loadedLibibverbs() {
        try {
            LibraryInfo.loadVerbs();
        } catch (LinkageError e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return "none (" + cause.getMessage() + "; install libibverbs1 and librdmacm1)";
        }
        return LibraryInfo.loaded("libibverbs").map(Object::toString).orElse("unknown (not found in /proc/self/maps)");
    }
}
