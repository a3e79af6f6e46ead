// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import dev.jrdma.NativeResource;
import dev.jrdma.Verb;
import java.lang.foreign.MemorySegment;

/**
 * How a core object is created and destroyed when another library does both for it: rdma_cm's
 * {@code rdma_create_qp} and {@code rdma_create_srq} create a queue pair or shared receive
 * queue on an id, and only {@code rdma_destroy_qp} / {@code rdma_destroy_srq} may destroy it
 * (they also clear the id's pointer to it). The core fills in the attributes, wraps and owns the
 * object as usual, and calls these instead of the verbs, without knowing the rdma_cm id.
 */
public interface NativeCreator {
    /** {@return the resource the object is created through (the id): held while it is created, and one of its owners} */
    NativeResource owner();

    /** {@return the verb {@link #create} calls, for the exception when it returns NULL} */
    Verb verb();

    /**
     * Creates the native object.
     *
     * @param errno    Errno's slot, set when this returns NULL
     * @param pd       the {@code struct ibv_pd *} to create it in
     * @param initAttr the init attributes the core filled in ({@code ibv_qp_init_attr} or {@code ibv_srq_init_attr})
     * @return the new object ({@code struct ibv_qp *} or {@code struct ibv_srq *}), or NULL
     */
    MemorySegment create(MemorySegment errno, MemorySegment pd, MemorySegment initAttr);

    /** Destroys the object {@link #create} made; called once, from its release() or when wrapping it failed. */
    void destroy();
}
