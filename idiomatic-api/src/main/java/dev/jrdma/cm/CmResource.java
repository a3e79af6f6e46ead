// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.NativeResource;
import dev.jrdma.RdmaResource;
import dev.jrdma.internal.CoreAccess;
import dev.jrdma.internal.ResourceHost;

/**
 * What this package's resources share: their place in the core's lifetime rules (owners,
 * dependents, close), kept by the core as {@link #lifetime} and made through the module's
 * internal bridge, so that {@code dev.jrdma} names none of these types. close() and isClosed()
 * hand on to it; wherever the core needs the resource as an owner or a held object, this
 * package passes {@link #lifetime}.
 */
abstract sealed class CmResource implements RdmaResource permits CmDevices, CmEventChannel, CmId, MulticastJoin {
    static final CoreAccess CORE = CoreAccess.get();

    /** The resource as the core's lifetime rules see it; its text is this object's. */
    final NativeResource lifetime;

    /** @param owners what this resource is made from, as for the core's resources */
    CmResource(NativeResource... owners) {
        lifetime = CORE.lifetime(ResourceHost.of(this, this::release, this::closing), owners);
    }

    /** Releases the native object; called once, after everything that depends on it is closed. */
    abstract void release();

    /** Called once when close() begins: wakes threads blocked on the resource. */
    void closing() {
    }

    /** Throws IllegalStateException naming this object if it is closed. */
    final void checkOpen() {
        CORE.checkOpen(lifetime);
    }

    @Override
    public final boolean isClosed() {
        return lifetime.isClosed();
    }

    @Override
    public final void close() {
        lifetime.close();
    }
}
