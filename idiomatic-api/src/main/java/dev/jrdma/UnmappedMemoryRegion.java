// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.rdma_h;
import java.lang.foreign.MemorySegment;

/**
 * A memory region whose memory this process does not map, so it has keys and a device address
 * but no {@link MemoryRegion#segment()}: the null MR ({@link ProtectionDomain#allocateNullMemoryRegion()},
 * which discards what is written to it and reads as zeros), a region of device memory
 * ({@link DeviceMemory#register}) or a region imported from another process
 * ({@link ProtectionDomain#importMemoryRegion(int)}).
 *
 * <p>{@link #toString()}: {@code <kind> lkey 0x.. on <device>}.
 */
@Reaches({"ibv_unimport_mr"})   // close() reaches them
public final class UnmappedMemoryRegion extends NativeObject {
    private final boolean imported;
    private final int lkey;
    private final int rkey;
    private final long address;
    private final long length;

    UnmappedMemoryRegion(ProtectionDomain pd, MemorySegment handle, String kind, boolean imported,
                         NativeResource... alsoOwners) {
        super(handle, kind + " lkey 0x" + Integer.toHexString(ibv_mr.lkey(handle)) + " on " + pd.context().name(),
                owners(pd, alsoOwners));
        this.imported = imported;
        this.lkey = ibv_mr.lkey(handle);
        this.rkey = ibv_mr.rkey(handle);
        this.address = ibv_mr.addr(handle).address();
        this.length = ibv_mr.length(handle);
    }

    private static NativeResource[] owners(ProtectionDomain pd, NativeResource[] alsoOwners) {
        NativeResource[] all = new NativeResource[alsoOwners.length + 1];
        all[0] = pd;
        System.arraycopy(alsoOwners, 0, all, 1, alsoOwners.length);
        return all;
    }

    /** {@return the local key, for scatter/gather entries} */
    public int lkey() {
        checkOpen();
        return lkey;
    }

    /** {@return the remote key} */
    public int rkey() {
        checkOpen();
        return rkey;
    }

    /** {@return the address the device knows the region's first byte by} */
    public long address() {
        return address;
    }

    /** {@return the number of bytes} */
    public long length() {
        return length;
    }

    /** Deregisters the region, or unimports it if it was imported; reaches {@code ibv_dereg_mr} or {@code ibv_unimport_mr}. */
    @Override
    protected void release() {
        if (imported) {
            rdma_h.ibv_unimport_mr(handle);
        } else {
            RdmaException.check(Verb.IBV_DEREG_MR, this, rdma_h.ibv_dereg_mr(handle));
        }
    }
}
