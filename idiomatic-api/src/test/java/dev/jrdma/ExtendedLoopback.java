// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

/**
 * Two queue pairs of one type on one device, created for the extended post API with
 * {@code ops}, connected to each other, both on one extended completion queue with the
 * standard fields; a registered buffer per side (as {@link Loopback}).
 */
final class ExtendedLoopback implements AutoCloseable {
    final Context context;
    final ProtectionDomain pd;
    final ExtendedCompletionQueue cq;
    final QueuePair a;
    final QueuePair b;
    final ExtendedSendQueue sa;
    final MemoryRegion memA;
    final MemoryRegion memB;
    final Endpoint endpointA;
    final Endpoint endpointB;
    final ExtendedCompletions batch = new ExtendedCompletions(8);

    /** One completion as the batch read it, copied. */
    record Completion(long wrId, WorkCompletionStatus status, WorkCompletionOpcode opcode, int vendorError,
                      int flags, int byteLength, int immediateRaw, int qpNumber, int sourceQp, int sourceLid,
                      int serviceLevel, int dlidPathBits) {
        int immediate() {
            return Integer.reverseBytes(immediateRaw);
        }
    }

    ExtendedLoopback(QueuePairType type, SendOp... ops) {
        context = TestDevices.device().open();
        try {
            pd = context.allocateProtectionDomain();
            cq = context.extendedCompletionQueue(64).build();
            a = pd.queuePair(type).completionQueue(cq.asCompletionQueue()).maxInlineData(64).maxSges(2, 2)
                    .extendedPost(ops).build();
            b = pd.queuePair(type).completionQueue(cq.asCompletionQueue()).maxInlineData(64).maxSges(2, 2)
                    .extendedPost(ops).build();
            memA = pd.allocate(Loopback.SIZE, Loopback.ALL);
            memB = pd.allocate(Loopback.SIZE, Loopback.ALL);
            endpointA = a.localEndpoint();
            endpointB = b.localEndpoint();
            a.connect(endpointB);
            b.connect(endpointA);
            sa = ExtendedSendQueue.of(a);
        } catch (RuntimeException | Error e) {
            context.close();
            throw e;
        }
    }

    /** Polls (within the test timeout) until {@code n} completions were read; copies them in arrival order. */
    List<Completion> take(int n) {
        List<Completion> out = new ArrayList<>();
        long deadline = System.nanoTime() + TestDevices.TIMEOUT.toNanos();
        while (out.size() < n && System.nanoTime() - deadline < 0) {
            int got = cq.poll(batch);
            for (int i = 0; i < got; i++) {
                out.add(new Completion(batch.wrId(i), batch.status(i), batch.opcode(i), batch.vendorError(i),
                        batch.completionFlags(i), batch.byteLength(i), Integer.reverseBytes(batch.immediateData(i)),
                        batch.qpNumber(i), batch.sourceQpNumber(i), batch.sourceLid(i), batch.serviceLevel(i),
                        batch.dlidPathBits(i)));
            }
        }
        assertTrue(out.size() >= n, "only " + out.size() + " of " + n + " completions within " + TestDevices.TIMEOUT);
        return out;
    }

    /** The completion with {@code wrId} among {@code all}. */
    static Completion byId(List<Completion> all, long wrId) {
        return all.stream().filter(c -> c.wrId() == wrId).findFirst()
                .orElseThrow(() -> new AssertionError("no completion with wr_id " + wrId + " in " + all));
    }

    @Override
    public void close() {
        context.close();
    }
}
