// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.LibraryInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Host test: needs libibverbs1 installed (scripts/setup), no device. */
class LibraryInfoTest {
    @Test
    void generatedFromNamesTheRdmaCoreRelease() {
        assertTrue(LibraryInfo.generatedFrom().matches("rdma-core \\d+\\.\\d+ \\(libibverbs-dev .*\\)"),
                LibraryInfo.generatedFrom());
    }

    @Test
    void loadedLibibverbsIsTheMappedFile() throws Exception {
        Class.forName(rdma_h.class.getName(), true, rdma_h.class.getClassLoader());   // dlopens libibverbs.so.1
        Optional<Path> lib = LibraryInfo.loaded("libibverbs");
        assertTrue(lib.isPresent(), "libibverbs not in /proc/self/maps");
        assertTrue(Files.isRegularFile(lib.get()), lib.get().toString());
        assertEquals(lib.get().toRealPath(), lib.get(), "maps shows the file itself, not a symlink");
        assertTrue(lib.get().getFileName().toString().startsWith("libibverbs.so.1."), lib.get().toString());
        assertEquals(Optional.empty(), LibraryInfo.loaded("libnot-a-library-jrdma-loads"));
    }
}
