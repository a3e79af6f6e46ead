package dev.jrdma.tools;

import dev.jrdma.tools.perftest.PerftestVersion;
import picocli.CommandLine.IVersionProvider;

/** {@code jrdma --version}: the jar's version, the perftest protocol it speaks, the JVM. */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return new String[] {
            "jrdma " + (v == null ? "(development build)" : v),
            "perftest out-of-band protocol " + PerftestVersion.ANNOUNCED + " (interoperates with perftest >= 5.70)",
            "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")",
        };
    }
}
