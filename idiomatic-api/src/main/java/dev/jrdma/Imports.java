// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ImportVerbs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@link Context#importContext(int)}, and what names the device behind a uverbs file descriptor for its messages. */
final class Imports {
    private Imports() {}

    /** {@code ibv_import_device(commandFd)}, sized to {@code struct ibv_context}; throws naming the fd's device. */
    static MemorySegment importDevice(int commandFd) {
        String device = deviceOf(commandFd);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment context = ImportVerbs.ibv_import_device(errno, commandFd);
            if (context.address() == 0) {
                int e = Errno.get(errno);
                throw RdmaException.of(Verb.IBV_IMPORT_DEVICE, "command fd " + commandFd + " of " + device, e,
                        e == Errno.EOPNOTSUPP ? device + " does not implement importing a context" : null);
            }
            return context.reinterpret(ibv_context.layout().byteSize());
        }
    }

    /**
     * {@return the RDMA device whose uverbs file {@code fd} is open on, e.g. {@code rxe0}, from
     * /proc/self/fd and /sys/class/infiniband_verbs (as libibverbs matches it, by device file);
     * a description of the fd when that cannot be read}
     */
    static String deviceOf(int fd) {
        try {
            Path file = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd));
            Path ibdev = Path.of("/sys/class/infiniband_verbs", file.getFileName().toString(), "ibdev");
            return Files.readString(ibdev).strip();
        } catch (IOException | RuntimeException e) {
            return "an unknown device";
        }
    }
}
