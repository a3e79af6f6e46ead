// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_parent_domain_init_attr;
import dev.jrdma.bindings.generated.ibv_pd;
import dev.jrdma.bindings.generated.ibv_td;
import dev.jrdma.bindings.generated.ibv_td_init_attr;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ExtensionVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A thread domain ({@code struct ibv_td}): a promise that the objects of a parent domain built
 * on it ({@link Context#allocateParentDomain}) are used by one thread at a time, so the provider
 * may drop its locks and give them a doorbell of their own. From
 * {@link Context#allocateThreadDomain()}; providers without thread domains (rxe) refuse it with
 * {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code thread domain on <device>}.
 */
@Reaches({"ibv_dealloc_td"})   // close() reaches them
public final class ThreadDomain extends NativeObject {
    private ThreadDomain(Context context, MemorySegment handle) {
        super(handle, "thread domain on " + context.name(), context);
    }

    static ThreadDomain allocate(Context context) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context)) {
            MemorySegment init = arena.allocate(ibv_td_init_attr.layout());
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment td = ExtensionVerbs.ibv_alloc_td(errno, context.handle(), init);
            RdmaException.checkCreated(Verb.IBV_ALLOC_TD, context, errno, td, context, "thread domains");
            return wrapCreated(td, ibv_td.layout(), h -> new ThreadDomain(context, h), ExtensionVerbs::ibv_dealloc_td);
        }
    }

    /**
     * A parent domain ({@code ibv_alloc_parent_domain}): a protection domain that wraps
     * {@code pd} and, optionally, a thread domain; QPs, CQs and SRQs created in it use the
     * thread domain's resources.
     */
    static ProtectionDomain allocateParentDomain(Context context, ProtectionDomain pd, ThreadDomain td) {
        try (Arena arena = Arena.ofConfined(); var _ = hold(context, pd, td)) {
            MemorySegment attr = arena.allocate(ibv_parent_domain_init_attr.layout());
            ibv_parent_domain_init_attr.pd(attr, pd.handle());
            ibv_parent_domain_init_attr.td(attr, td == null ? MemorySegment.NULL : td.handle());
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment parent = ExtensionVerbs.ibv_alloc_parent_domain(errno, context.handle(), attr);
            RdmaException.checkCreated(Verb.IBV_ALLOC_PARENT_DOMAIN, context + ", " + pd + (td == null ? "" : ", " + td), errno, parent,
                    context, "parent domains");
            return NativeResource.wrapCreated(parent, ibv_pd.layout(),
                    h -> ProtectionDomain.parentDomain(context, h, pd, td), rdma_h::ibv_dealloc_pd);
        }
    }

    /** Frees the thread domain; reaches {@code ibv_dealloc_td}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DEALLOC_TD, this, ExtensionVerbs.ibv_dealloc_td(handle));
    }
}
