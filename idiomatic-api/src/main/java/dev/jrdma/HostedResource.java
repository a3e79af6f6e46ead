// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.ResourceHost;

/**
 * The lifetime of a resource another package of the module owns (see {@link ResourceHost}):
 * the host keeps one of these and hands on close() and isClosed() to it, and passes it wherever
 * an owner, a dependent or a held resource is needed. Final and package-private, so the seal of
 * {@link NativeResource} stays closed to applications.
 */
final class HostedResource extends NativeResource {
    private final ResourceHost host;

    HostedResource(ResourceHost host, NativeResource... owners) {
        super(owners);
        this.host = host;
    }

    @Override
    protected void release() {
        host.release();
    }

    @Override
    protected void closing() {
        host.closing();
    }

    /** The host's text, so that "... is closed" names the rdma_cm object. */
    @Override
    public String toString() {
        return host.toString();
    }
}
