// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_mw_bind_info;
import dev.jrdma.bindings.generated.ibv_send_wr;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * What a {@link SendOpcode#BIND_MW} request binds ({@link SendRequest#bind}): a type 2 window
 * to a range of a region, with the rights peers get. Written into the request's
 * {@code bind_mw} member at every post, because every bind claims the window's next key.
 */
final class WindowBinding {
    final MemoryWindow window;
    private final MemoryRegion region;
    private final long offset;
    private final long length;
    private final Set<Access> access;
    private final int accessFlags;
    /**
     * Whether the last post of the request claimed a key of the window (see {@link #unclaim()});
     * stale after a successful post, so only a failure of the post that just wrote it reads it.
     */
    private boolean claimed;

    WindowBinding(MemoryWindow window, MemoryRegion region, long offset, long length, Set<Access> access) {
        this.window = window;
        this.region = region;
        this.offset = offset;
        this.length = length;
        this.access = Set.copyOf(access);
        this.accessFlags = Access.flags(access);
        if (length <= 0) {
            throw new IllegalArgumentException(window + ": a type 2 window is bound to at least 1 byte, not " + length
                    + " (invalidation revokes it)");
        }
    }

    /** Checks the window and region for {@code qp}, claims the window's next key and writes the bind into {@code wr}. */
    void write(MemorySegment wr, QueuePair qp) {
        window.checkOpen();
        region.checkUsable();
        int rkey = window.claimBind(qp, region, offset, length);
        claimed = true;
        MemorySegment bind = ibv_send_wr.bind_mw(wr);
        ibv_send_wr.bind_mw.mw(bind, window.handle());
        ibv_send_wr.bind_mw.rkey(bind, rkey);
        MemorySegment info = ibv_send_wr.bind_mw.bind_info(bind);
        ibv_mw_bind_info.mr(info, region.handle());
        ibv_mw_bind_info.addr(info, region.address() + offset);
        ibv_mw_bind_info.length(info, length);
        ibv_mw_bind_info.mw_access_flags(info, accessFlags);
    }

    /** The post that claimed a key failed before the bind reached the provider: give the key back. */
    void unclaim() {
        if (claimed) {
            claimed = false;
            window.unclaim();
        }
    }

    @Override
    public String toString() {
        return window + " to " + length + " bytes at offset " + offset + " of " + region + " with " + access;
    }
}
