// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.EnumSet;
import java.util.Set;

/**
 * Two queue pairs (RC, UC or UD) on one device connected to each other (Soft-RoCE cannot connect two rxe
 * devices of one VM reliably, and one device exercises the same paths), one CQ, and a
 * registered buffer per side.
 */
final class Loopback implements AutoCloseable {
    static final Set<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
            Access.REMOTE_ATOMIC);
    static final int SIZE = 8192;

    final Context context;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair a;
    final QueuePair b;
    final MemoryRegion memA;
    final MemoryRegion memB;
    final Endpoint endpointA;
    final Endpoint endpointB;
    final WorkCompletion wc = new WorkCompletion();

    Loopback(QueuePairType type, Set<Access> accessB, ConnectionOptions options) {
        context = TestDevices.device().open();
        try {
            pd = context.allocateProtectionDomain();
            cq = context.createCompletionQueue(64);
            a = pd.queuePair(type).completionQueue(cq).maxInlineData(64).maxSges(2, 2).build();
            b = pd.queuePair(type).completionQueue(cq).maxInlineData(64).maxSges(2, 2).build();
            memA = pd.allocate(SIZE, ALL);
            memB = pd.allocate(SIZE, accessB);
            endpointA = a.localEndpoint();
            endpointB = b.localEndpoint();
            a.connect(endpointB, options);
            b.connect(endpointA, options);
        } catch (RuntimeException | Error e) {
            context.close();
            throw e;
        }
    }

    Loopback() {
        this(QueuePairType.RC, ALL, ConnectionOptions.DEFAULTS);
    }

    /** Polls one completion (within the test timeout) into {@link #wc}. */
    WorkCompletion take() {
        return cq.take(wc, TestDevices.TIMEOUT);
    }

    @Override
    public void close() {
        context.close();
    }
}
