// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.bindings.generated.ibv_context;
import dev.jrdma.bindings.generated.ibv_context_ops;
import dev.jrdma.bindings.generated.ibv_mr;
import dev.jrdma.bindings.generated.ibv_mw;
import dev.jrdma.bindings.generated.ibv_mw_bind;
import dev.jrdma.bindings.generated.ibv_mw_bind_info;
import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.MemoryWindowVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * ibv_bind_mw's argument checks run before anything is dispatched, as in the C inline, so they
 * are tested on hand-built structs without a device (the context pointer is never read). The
 * dispatch of alloc_mw and dealloc_mw through the context's ops table is tested on a hand-built
 * context whose ops are NULL or a Java upcall.
 */
class MemoryWindowChecksTest {
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment pdA = arena.allocate(64);
    private final MemorySegment pdB = arena.allocate(64);

    private MemorySegment window(int type, MemorySegment pd) {
        MemorySegment mw = arena.allocate(ibv_mw.layout());
        ibv_mw.type(mw, type);
        ibv_mw.pd(mw, pd);
        return mw;
    }

    private MemorySegment bind(MemorySegment mr, long addr, long length) {
        MemorySegment bind = arena.allocate(ibv_mw_bind.layout());
        MemorySegment info = ibv_mw_bind.bind_info(bind);
        ibv_mw_bind_info.mr(info, mr);
        ibv_mw_bind_info.addr(info, addr);
        ibv_mw_bind_info.length(info, length);
        return bind;
    }

    @Test
    void typeTwoWindowsAreBoundByWorkRequestNotByBindMw() {
        assertEquals(EINVAL(), MemoryWindowVerbs.ibv_bind_mw(MemorySegment.NULL, window(IBV_MW_TYPE_2(), pdA),
                bind(MemorySegment.NULL, 0, 0)));
    }

    @Test
    void rangeWithoutMemoryRegionIsInvalid() {
        assertEquals(EINVAL(), MemoryWindowVerbs.ibv_bind_mw(MemorySegment.NULL, window(IBV_MW_TYPE_1(), pdA),
                bind(MemorySegment.NULL, 4096, 0)));
        assertEquals(EINVAL(), MemoryWindowVerbs.ibv_bind_mw(MemorySegment.NULL, window(IBV_MW_TYPE_1(), pdA),
                bind(MemorySegment.NULL, 0, 64)));
    }

    @Test
    void memoryRegionOfAnotherProtectionDomainIsNotPermitted() {
        MemorySegment mr = arena.allocate(ibv_mr.layout());
        ibv_mr.pd(mr, pdB);
        assertEquals(EPERM(), MemoryWindowVerbs.ibv_bind_mw(MemorySegment.NULL, window(IBV_MW_TYPE_1(), pdA),
                bind(mr, 0, 64)));
    }

    @Test
    void deallocMwCallsTheContextsOpWithTheWindowAndAnswersItsResult() {
        MemorySegment context = arena.allocate(ibv_context.layout());
        MemorySegment mw = window(IBV_MW_TYPE_1(), pdA);
        ibv_mw.context(mw, context);
        assertEquals(Errno.EOPNOTSUPP, MemoryWindowVerbs.ibv_dealloc_mw(mw), "no dealloc_mw op");

        long[] freed = {0};
        ibv_context_ops.dealloc_mw(ibv_context.ops(context), ibv_context_ops.dealloc_mw.allocate(w -> {
            freed[0] = w.address();
            return 77;
        }, Arena.global()));
        assertEquals(77, MemoryWindowVerbs.ibv_dealloc_mw(mw));
        assertEquals(mw.address(), freed[0]);
    }

    @Test
    void allocMwWithoutTheOpIsNullWithEopnotsupp() {
        MemorySegment pd = arena.allocate(ibv_pd.layout());
        ibv_pd.context(pd, arena.allocate(ibv_context.layout()));
        MemorySegment errno = Errno.allocate(arena);
        assertEquals(0, MemoryWindowVerbs.ibv_alloc_mw(errno, pd, IBV_MW_TYPE_1()).address());
        assertEquals(Errno.EOPNOTSUPP, Errno.get(errno));
    }

    @Test
    void incRkeyBumpsOnlyTheKeyTag() {
        assertEquals(0x12345601, MemoryWindowVerbs.ibv_inc_rkey(0x12345600));
        assertEquals(0x12345600, MemoryWindowVerbs.ibv_inc_rkey(0x123456ff));
    }
}
