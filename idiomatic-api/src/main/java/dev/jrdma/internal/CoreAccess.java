// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.internal;

import dev.jrdma.AddressHandle;
import dev.jrdma.Context;
import dev.jrdma.Gid;
import dev.jrdma.NativeResource;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairState;
import dev.jrdma.QueuePairType;
import dev.jrdma.RdmaException;
import dev.jrdma.SharedReceiveQueue;
import dev.jrdma.Verb;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What the module's other packages ({@code dev.jrdma.cm}, and this one) need of {@code dev.jrdma}
 * that is not API: Java has no friend packages, so the core implements this interface with
 * package-private class {@code dev.jrdma.CoreBridge} and hands it here, as the JDK's
 * {@code SharedSecrets} do. This package is not exported, so no application can call it, and
 * nothing here becomes a member of an exported type.
 *
 * <p>Keep it small: a member here is a package-private member of the core used across the
 * boundary; the core itself never goes through the bridge.
 */
public interface CoreAccess {
    /** {@return the core's implementation, initialising the class that registers it on first use} */
    static CoreAccess get() {
        CoreAccess access = Registration.access;
        if (access == null) {
            try {
                // Its static initialiser calls set(); initialising it twice is impossible.
                Class.forName("dev.jrdma.CoreBridge", true, CoreAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            access = Registration.access;
        }
        return access;
    }

    /** Called once, by the core's implementation. */
    static void set(CoreAccess access) {
        if (Registration.access != null) {
            throw new IllegalStateException("the core access is already set");
        }
        Registration.access = access;
    }

    /** The registered implementation; an interface cannot hold a mutable field itself. */
    final class Registration {
        private static volatile CoreAccess access;

        private Registration() {}
    }

    // Errors (RdmaException's factories).

    /** {@return the exception for {@code errno} from {@code verb} on {@code object}, an OperationNotSupportedException for EOPNOTSUPP} */
    RdmaException exception(Verb verb, Object object, int errno, String detail);

    /** {@return as {@link #exception(Verb, Object, int, String)} without a detail} */
    default RdmaException exception(Verb verb, Object object, int errno) {
        return exception(verb, object, errno, null);
    }

    /** {@return an exception whose message is not errno-shaped} */
    RdmaException exception(String message, Verb verb, String object, int errno);

    /** {@return {@code created}, or throws the exception from {@code errno} if it is NULL} */
    MemorySegment checkCreated(Verb verb, Object object, MemorySegment errno, MemorySegment created);

    // The native-object base, on objects other than the caller.

    /** {@return begins a control-path call on each non-null resource; close the result in a finally} */
    Held hold(NativeResource... resources);

    /** {@return the native object of a core resource for a verb call; IllegalStateException once it is closed} */
    MemorySegment handle(NativeResource resource);

    /**
     * {@return a new resource whose lifetime {@code host} gives its release to: it registers with
     * {@code owners} (nulls and repeats ignored) as any resource does}
     */
    NativeResource lifetime(ResourceHost host, NativeResource... owners);

    /** Throws IllegalStateException naming {@code resource} if it is closed. */
    void checkOpen(NativeResource resource);

    /** Makes {@code resource} depend on {@code owner} from now on: closing the owner closes it first. */
    void dependOn(NativeResource resource, NativeResource owner);

    /** Moves {@code resource} from owner {@code from} to owner {@code to} (an rdma_cm id migrated to another channel). */
    void moveOwner(NativeResource resource, NativeResource from, NativeResource to);

    /** {@return the open dependents of {@code resource}, oldest first} */
    List<NativeResource> dependents(NativeResource resource);

    /** {@return the address of the native object, 0 if none} */
    long nativeAddress(NativeResource resource);

    // Objects the core makes for rdma_cm.

    /** {@return a view of a context another library opened and closes; {@code owner} closes it} */
    Context borrowedContext(MemorySegment handle, NativeResource owner);

    /** {@return the protection domain the builder creates its queue pair in} */
    ProtectionDomain protectionDomain(QueuePair.Builder builder);

    /** {@return the shared receive queue the builder's queue pair takes receives from, or null} */
    SharedReceiveQueue sharedReceiveQueue(QueuePair.Builder builder);

    /** {@return the queue pair the builder describes, created and destroyed through {@code creator}} */
    QueuePair createQueuePair(QueuePair.Builder builder, NativeCreator creator);

    /** {@return a shared receive queue in {@code pd}, created and destroyed through {@code creator}} */
    SharedReceiveQueue createSharedReceiveQueue(ProtectionDomain pd, NativeCreator creator, int maxWorkRequests,
            int maxSges);

    /** {@return an address handle from an {@code ibv_ah_attr} another library filled in} */
    AddressHandle createAddressHandle(ProtectionDomain pd, MemorySegment attr, Gid destination);

    // Queue pair state that rdma_cm moves.

    /** Re-reads the state of {@code qp} after rdma_cm moved it behind the object's back. */
    void refreshState(QueuePair qp);

    /** Modifies {@code qp} with attributes rdma_cm computed ({@code rdma_init_qp_attr}), as a transition to {@code target}. */
    void modify(QueuePair qp, MemorySegment attr, int mask, QueuePairState target);

    /** {@return the C value of {@code type}} */
    int value(QueuePairType type);

    /** {@return the C value of {@code state}} */
    int value(QueuePairState state);

    /** Records the JFR connection event (established or closed) of a queue pair rdma_cm connected; null: nothing. */
    void connectionEvent(boolean established, String peer, QueuePair qp);
}
