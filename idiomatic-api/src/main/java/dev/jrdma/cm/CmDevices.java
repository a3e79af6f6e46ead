// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.Context;
import dev.jrdma.RdmaException;
import dev.jrdma.Reaches;
import dev.jrdma.Verb;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.RdmaCmVerbs;
import dev.jrdma.internal.NativeAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The device contexts librdmacm opened for itself ({@code rdma_get_devices}): the contexts an
 * id's {@link CmId#context()} is one of, so resources allocated on them (a protection domain,
 * completion queues) can serve ids before any id is resolved. {@link #close()} frees the list
 * ({@code rdma_free_devices}) and closes the views; librdmacm keeps the devices open.
 *
 * <p>{@link #toString()}: {@code rdma_cm devices [rxe0, ...]}.
 */
@Reaches({"rdma_get_devices", "rdma_free_devices"})
public final class CmDevices extends CmResource {
    private final MemorySegment list;
    private final List<Context> contexts = new ArrayList<>();

    private CmDevices(MemorySegment list, int count) {
        this.list = list;
        MemorySegment array = list.reinterpret(ADDRESS.byteSize() * (count + 1L));
        for (int i = 0; i < count; i++) {
            contexts.add(CORE.borrowedContext(array.getAtIndex(ADDRESS, i), lifetime));
        }
    }

    /**
     * {@return librdmacm's device contexts}
     *
     * @throws RdmaException when librdmacm cannot list the devices (e.g. no rdma_ucm)
     */
    public static CmDevices open() {
        NativeAccess.require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = RdmaCmVerbs.rdma_get_devices(errno, count);
            if (list.address() == 0) {
                throw CORE.exception(Verb.RDMA_GET_DEVICES, "rdma_cm", Errno.get(errno));
            }
            try {
                return new CmDevices(list, count.get(JAVA_INT, 0));
            } catch (RuntimeException e) {
                rdma_h.rdma_free_devices(list);
                throw e;
            }
        }
    }

    /** {@return the contexts, one per device librdmacm could open} */
    public List<Context> contexts() {
        checkOpen();
        return List.copyOf(contexts);
    }

    @Override
    void release() {
        rdma_h.rdma_free_devices(list);
    }

    @Override
    public String toString() {
        return "rdma_cm devices " + contexts.stream().map(Context::name).toList();
    }
}
