// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.packaging;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** packaging/, found from the tests' classes (target/test-classes): where the launcher and the builds are. */
final class ModuleDir {
    static final Path PATH = fromClasses();

    private ModuleDir() {}

    private static Path fromClasses() {
        try {
            return Path.of(ModuleDir.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .getParent().getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
