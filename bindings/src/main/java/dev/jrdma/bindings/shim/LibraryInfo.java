// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
package dev.jrdma.bindings.shim;

import dev.jrdma.bindings.generated.rdma_h;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * What the bindings were generated from and which native libraries this process loaded: for
 * {@code jrdma --version} and bug reports, where a header/library mismatch is the first
 * suspect.
 */
public final class LibraryInfo {
    private LibraryInfo() {}

    /**
     * {@return the rdma-core release the generated bindings came from, e.g. "44.0", and the
     * header packages, as regenerate.sh recorded them}
     */
    public static String generatedFrom() {
        Properties p = new Properties();
        try (InputStream in = LibraryInfo.class.getResourceAsStream("generated-from.properties")) {
            if (in == null) {
                return "unknown (generated-from.properties missing from the bindings jar)";
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "rdma-core " + p.getProperty("rdma-core", "?") + " (" + p.getProperty("headers", "?") + ")";
    }

    /**
     * Loads libibverbs.so.1 and librdmacm.so.1 as the bindings do (initializing the generated
     * header class dlopens them).
     *
     * @throws LinkageError when a library is missing (its message names it)
     */
    public static void loadVerbs() {
        try {
            Class.forName(rdma_h.class.getName(), true, rdma_h.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new NoClassDefFoundError(e.getMessage());
        }
    }

    /**
     * The file a shared library this process has mapped was loaded from, from
     * {@code /proc/self/maps}, which shows it with its symlinks resolved (libibverbs.so.1 is
     * libibverbs.so.1.14.44.0: the name carries rdma-core's version).
     *
     * @param stem the library's name up to ".so", e.g. {@code libibverbs}
     * @return the mapped file, or empty when the library is not mapped (or not on Linux)
     */
    public static Optional<Path> loaded(String stem) {
        Path maps = Path.of("/proc/self/maps");
        if (!Files.isReadable(maps)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(maps)) {
            return lines.filter(l -> l.indexOf('/') >= 0)
                    .map(l -> Path.of(l.substring(l.indexOf('/'))))
                    .filter(p -> p.getFileName() != null && p.getFileName().toString().startsWith(stem + ".so"))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
