// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_alloc_dm_attr;
import dev.jrdma.bindings.generated.ibv_dm;
import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import dev.jrdma.bindings.shim.ImportVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Memory on the device itself ({@code struct ibv_dm}), e.g. NIC SRAM on mlx5: the lowest-latency
 * target for small RDMA operations and atomics, copied to and from with
 * {@link #copyFrom}/{@link #copyTo} and made reachable by registering it ({@link #register}).
 * From {@link Context#allocateDeviceMemory(long)}; devices whose
 * {@link DeviceAttributes#maxDeviceMemorySize()} is 0 (rxe) refuse it with
 * {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code device memory (<n> bytes) on <device>}.
 */
@Reaches({"ibv_free_dm", "ibv_unimport_dm"})   // close() reaches them
public final class DeviceMemory extends NativeObject {
    private final Context context;
    private final long length;
    private final boolean imported;

    private DeviceMemory(Context context, MemorySegment handle, long length, boolean imported) {
        super(handle, (imported ? "imported device memory handle " + ibv_dm.handle(handle) : "device memory (" + length
                + " bytes)") + " on " + context.name(), context);
        this.context = context;
        this.length = length;
        this.imported = imported;
    }

    static DeviceMemory allocate(Context context, long length, int logAlignment) {
        if (length <= 0) {
            throw new IllegalArgumentException("device memory needs a positive length, not " + length);
        }
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment attr = arena.allocate(ibv_alloc_dm_attr.layout());
            ibv_alloc_dm_attr.length(attr, length);
            ibv_alloc_dm_attr.log_align_req(attr, logAlignment);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment dm = ExtensionVerbs.ibv_alloc_dm(errno, context.handle(), attr);
            RdmaException.checkCreated(Verb.IBV_ALLOC_DM, context + ", " + length + " bytes", errno, dm,
                    context, "device memory");
            return wrapCreated(dm, ibv_dm.layout(), h -> new DeviceMemory(context, h, length, false),
                    ExtensionVerbs::ibv_free_dm);
        }
    }

    static DeviceMemory importFrom(Context context, int dmHandle) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment dm = ImportVerbs.ibv_import_dm(errno, context.handle(), dmHandle);
            RdmaException.checkCreated(Verb.IBV_IMPORT_DM, context + ", handle " + dmHandle, errno, dm,
                    context, "importing device memory");
            return wrapCreated(dm, ibv_dm.layout(), h -> new DeviceMemory(context, h, -1, true),
                    rdma_h::ibv_unimport_dm);
        }
    }

    /** {@return the number of bytes allocated; -1 for imported memory, whose size the import does not tell} */
    public long length() {
        return length;
    }

    /** {@return the handle another process passes to {@link Context#importDeviceMemory(int)}} */
    public int handleNumber() {
        return ibv_dm.handle(handle());
    }

    /**
     * Copies {@code source} into the device memory at {@code offset}.
     *
     * @param offset where in the device memory (providers may require 4-byte alignment)
     * @param source native memory to copy
     */
    @Reaches({"ibv_memcpy_to_dm"})
    public void copyFrom(long offset, MemorySegment source) {
        enter();
        try {
            int rc = ExtensionVerbs.ibv_memcpy_to_dm(handle, offset, source, source.byteSize());
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_MEMCPY_TO_DM, this, rc, source.byteSize() + " bytes at offset " + offset);
            }
        } finally {
            exit();
        }
    }

    /**
     * Copies device memory from {@code offset} into {@code target}, filling it.
     *
     * @param offset where in the device memory
     * @param target native memory to fill
     */
    @Reaches({"ibv_memcpy_from_dm"})
    public void copyTo(long offset, MemorySegment target) {
        enter();
        try {
            int rc = ExtensionVerbs.ibv_memcpy_from_dm(target, handle, offset, target.byteSize());
            if (rc != 0) {
                throw RdmaException.of(Verb.IBV_MEMCPY_FROM_DM, this, rc, target.byteSize() + " bytes at offset " + offset);
            }
        } finally {
            exit();
        }
    }

    /**
     * Registers {@code [offset, offset + length)} of this device memory in {@code pd}; the
     * region's address is an offset into the device memory ({@code IBV_ACCESS_ZERO_BASED} is
     * implied, as the providers require).
     *
     * @param pd     the protection domain
     * @param offset where the region starts in the device memory
     * @param length the number of bytes
     * @param access the rights of the device and of peers
     * @return the region, owned by the PD and by this memory
     */
    @Reaches({"ibv_reg_dm_mr"})
    public UnmappedMemoryRegion register(ProtectionDomain pd, long offset, long length, Set<Access> access) {
        final int zeroBased = 1 << 5;   // IBV_ACCESS_ZERO_BASED
        try (Arena arena = Arena.ofConfined(); var _ = hold(this, pd)) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ExtensionVerbs.ibv_reg_dm_mr(errno, pd.handle(), handle, offset, length,
                    Access.flags(access) | zeroBased);
            RdmaException.checkCreated(Verb.IBV_REG_DM_MR, pd + ", " + length + " bytes of " + this, errno, mr,
                    context, "device memory regions");
            return wrapCreated(mr, ibv_mr.layout(), h -> new UnmappedMemoryRegion(pd, h, "device memory region", false,
                    this), rdma_h::ibv_dereg_mr);
        }
    }

    /** Frees the memory, or unimports it; reaches {@code ibv_free_dm} or {@code ibv_unimport_dm}. */
    @Override
    protected void release() {
        if (imported) {
            rdma_h.ibv_unimport_dm(handle);
        } else {
            RdmaException.check(Verb.IBV_FREE_DM, this, ExtensionVerbs.ibv_free_dm(handle));
        }
    }
}
