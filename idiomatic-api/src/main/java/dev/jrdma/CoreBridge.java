// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.internal.CoreAccess;
import dev.jrdma.internal.Held;
import dev.jrdma.internal.NativeCreator;
import dev.jrdma.internal.ResourceHost;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The core's side of {@link CoreAccess}: each member hands on to the package-private member of
 * the same name, for the module's other packages. It registers itself when
 * it is initialised, which {@link CoreAccess#get()} forces, so no order of class initialisation
 * can leave the bridge unset.
 */
final class CoreBridge implements CoreAccess {
    static {
        CoreAccess.set(new CoreBridge());
    }

    private CoreBridge() {}

    @Override
    public RdmaException exception(Verb verb, Object object, int errno, String detail) {
        return RdmaException.of(verb, object, errno, detail);
    }

    @Override
    public RdmaException exception(String message, Verb verb, String object, int errno) {
        return new RdmaException(message, verb, object, errno);
    }

    @Override
    public MemorySegment checkCreated(Verb verb, Object object, MemorySegment errno, MemorySegment created) {
        return RdmaException.checkCreated(verb, object, errno, created);
    }

    @Override
    public Held hold(NativeResource... resources) {
        return NativeResource.hold(resources)::close;
    }

    @Override
    public MemorySegment handle(NativeResource resource) {
        return switch (resource) {
            case NativeObject o -> o.handle();
            case Context c -> c.handle();
            case MemoryRegion mr -> mr.handle();
            default -> throw new IllegalArgumentException(resource + " has no verbs handle");
        };
    }

    @Override
    public NativeResource lifetime(ResourceHost host, NativeResource... owners) {
        return new HostedResource(host, owners);
    }

    @Override
    public void checkOpen(NativeResource resource) {
        resource.checkOpen();
    }

    @Override
    public void dependOn(NativeResource resource, NativeResource owner) {
        resource.dependOn(owner);
    }

    @Override
    public void moveOwner(NativeResource resource, NativeResource from, NativeResource to) {
        resource.moveOwner(from, to);
    }

    @Override
    public List<NativeResource> dependents(NativeResource resource) {
        return resource.dependents();
    }

    @Override
    public long nativeAddress(NativeResource resource) {
        return resource.nativeAddress();
    }

    @Override
    public Context borrowedContext(MemorySegment handle, NativeResource owner) {
        return Context.borrowed(handle, owner);
    }

    @Override
    public ProtectionDomain protectionDomain(QueuePair.Builder builder) {
        return builder.protectionDomain();
    }

    @Override
    public SharedReceiveQueue sharedReceiveQueue(QueuePair.Builder builder) {
        return builder.srq;
    }

    @Override
    public QueuePair createQueuePair(QueuePair.Builder builder, NativeCreator creator) {
        return QpCreation.create(builder, creator);
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(ProtectionDomain pd, NativeCreator creator,
            int maxWorkRequests, int maxSges) {
        return SharedReceiveQueue.create(pd, creator, maxWorkRequests, maxSges);
    }

    @Override
    public AddressHandle createAddressHandle(ProtectionDomain pd, MemorySegment attr, Gid destination) {
        return AddressHandle.create(pd, attr, destination);
    }

    @Override
    public void refreshState(QueuePair qp) {
        qp.refreshState();
    }

    @Override
    public void modify(QueuePair qp, MemorySegment attr, int mask, QueuePairState target) {
        qp.connector.modifyWith(attr, mask, target);
    }

    @Override
    public int value(QueuePairType type) {
        return type.value();
    }

    @Override
    public int value(QueuePairState state) {
        return state.value();
    }

    @Override
    public void connectionEvent(boolean established, String peer, QueuePair qp) {
        Events.cmConnection(established, peer, qp);
    }
}
