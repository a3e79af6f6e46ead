// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.lang.foreign.MemorySegment;

/**
 * A resource that is one object of libibverbs behind a pointer ({@code struct ibv_pd *},
 * {@code struct ibv_cq *}, ...): the pointer, the address that matches an asynchronous event or
 * a completion channel's wake-up to the object, and the text {@link #toString()} gives it, so
 * that each resource class keeps only what is its own.
 *
 * <p>Non-sealed but package-private: only this package can extend it.
 */
abstract non-sealed class NativeObject extends NativeResource {
    /** The native object, sized to its struct; read it through {@link #handle()} outside release(). */
    final MemorySegment handle;
    private final String description;

    /**
     * @param handle      the native object, already created
     * @param description what toString() says, e.g. {@code protection domain handle 3 on rxe0}
     * @param owners      as for {@link NativeResource#NativeResource(NativeResource...)}
     */
    NativeObject(MemorySegment handle, String description, NativeResource... owners) {
        super(owners);
        this.handle = handle;
        this.description = description;
    }

    /** The native object for a verb call; IllegalStateException naming this object once it is closed. */
    MemorySegment handle() {
        checkOpen();
        return handle;
    }

    @Override
    protected final long nativeAddress() {
        return handle.address();
    }

    /** {@return what the object is: its kind, its number (handle, fd or QPN) and its device, as its class comment shows} */
    @Override
    public final String toString() {
        return description;
    }
}
