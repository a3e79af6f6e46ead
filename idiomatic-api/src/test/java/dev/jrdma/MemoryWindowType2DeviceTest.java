// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Type 2 memory windows: bound with a BIND_MW work request on the queue pair that exposes
 * them (b), used by the peer (a), and revoked by invalidation, from b itself (LOCAL_INV) or
 * from a (SEND_WITH_INV). A remote access with a revoked key ends the peer's connection, so it
 * is the last step of each test.
 */
@DeviceTest
@EveryKernel
class MemoryWindowType2DeviceTest {
    private static final Set<Access> BINDABLE = EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND);
    private static final Set<Access> READ_WRITE = EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ);

    @Test
    @Exercises({"ibv_alloc_mw", "ibv_inc_rkey", "ibv_post_send", "ibv_dealloc_mw"})
    void aPeersSendWithInvalidateRevokesTheWindow() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow mw = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            assertEquals(MemoryWindowType.TYPE_2, mw.type());
            int allocated = mw.rkey();
            bind(lo, mw, 256, 128, 10);
            int key = mw.rkey();
            assertEquals(MemoryWindow.nextRkey(allocated), key, "a bind advances the key tag");
            assertEquals(allocated >>> 8, key >>> 8, "of the same window");
            assertNotEquals(allocated & 0xff, key & 0xff);
            RemoteMemory window = mw.remote();
            assertEquals(lo.memB.address() + 256, window.address());
            assertEquals(128, window.length());

            lo.memA.segment().set(JAVA_LONG, 0, 0x0A0B0C0D01020304L);
            lo.a.post(new SendRequest().wrId(11).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8).remote(window));
            assertEquals(11, lo.take().checkSuccess().wrId());
            assertEquals(0x0A0B0C0D01020304L, lo.memB.segment().get(JAVA_LONG, 256), "written through the window");

            // a is done with the window: its SEND_WITH_INV revokes it as b receives the message.
            lo.b.post(new ReceiveRequest().wrId(12).sge(lo.memB, 4096, 64));
            lo.a.post(new SendRequest().wrId(13).opcode(SendOpcode.SEND_WITH_INV).invalidate(key).sge(lo.memA, 0, 8));
            WorkCompletion received = null;
            for (int i = 0; i < 2; i++) {
                WorkCompletion wc = lo.take().checkSuccess();
                if (wc.wrId() == 12) {
                    assertEquals(WorkCompletionOpcode.RECV, wc.opcode());
                    // rxe marks the completion with the kernel's IB_WC_WITH_INVALIDATE (1 << 2) instead
                    // of IBV_WC_WITH_INV (1 << 3); libibverbs passes its flags through unchanged and
                    // reads that bit as IBV_WC_IP_CSUM_OK. Measured on kernels 6.1 and 6.12 alike:
                    // wc_flags 0x5 (IBV_WC_GRH too), so the flag does not say "invalidated" on either.
                    int flags = dev.jrdma.bindings.generated.ibv_wc.wc_flags(wc.segment());
                    assertEquals(1 | 1 << 2, flags, "wc_flags 0x" + Integer.toHexString(flags));
                    assertFalse(wc.hasInvalidatedRkey());
                    assertEquals(key, wc.invalidatedRkey());
                    assertEquals(8, wc.byteLength());
                    received = wc;
                } else {
                    assertEquals(13, wc.wrId());
                    assertEquals(WorkCompletionOpcode.SEND, wc.opcode());
                }
            }
            assertTrue(received != null);

            lo.a.post(new SendRequest().wrId(14).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8).remote(window));
            WorkCompletion revoked = lo.take();
            assertEquals(14, revoked.wrId());
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, revoked.status());
            mw.close();
            assertTrue(mw.isClosed());
        }
    }

    @Test
    @Exercises({"ibv_alloc_mw", "ibv_inc_rkey", "ibv_post_send"})
    void aLocalInvalidateRevokesTheKeyAndTheWindowBindsAgain() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow mw = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            bind(lo, mw, 0, 64, 20);
            RemoteMemory first = mw.remote();
            lo.memB.segment().set(JAVA_LONG, 0, 0x7766554433221100L);
            lo.a.post(new SendRequest().wrId(21).opcode(SendOpcode.RDMA_READ).sge(lo.memA, 0, 8).remote(first));
            lo.take().checkSuccess();
            assertEquals(0x7766554433221100L, lo.memA.segment().get(JAVA_LONG, 0));

            lo.b.post(new SendRequest().wrId(22).opcode(SendOpcode.LOCAL_INV).sgeCount(0).invalidate(first.rkey()));
            WorkCompletion invalidated = lo.take().checkSuccess();
            assertEquals(22, invalidated.wrId());
            assertEquals(WorkCompletionOpcode.LOCAL_INV, invalidated.opcode());

            // Free again: a second bind, to another range, with the next key.
            bind(lo, mw, 1024, 64, 23);
            RemoteMemory second = mw.remote();
            assertEquals(MemoryWindow.nextRkey(first.rkey()), second.rkey());
            lo.memA.segment().set(JAVA_LONG, 8, 0x1234567812345678L);
            lo.a.post(new SendRequest().wrId(24).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 8, 8).remote(second));
            lo.take().checkSuccess();
            assertEquals(0x1234567812345678L, lo.memB.segment().get(JAVA_LONG, 1024));

            lo.a.post(new SendRequest().wrId(25).opcode(SendOpcode.RDMA_READ).sge(lo.memA, 0, 8).remote(first));
            WorkCompletion stale = lo.take();
            assertEquals(25, stale.wrId());
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, stale.status(), "the invalidated key stays revoked");
            // Still bound (second key) through b: the loopback's close deallocates it before b.
        }
    }

    /**
     * Deallocating a bound window revokes its key: the peer's access through it ends in a remote
     * access error (rdma-core's tests/test_mr.py test_mw_type2_invalidate_dealloc).
     */
    @Test
    @Exercises({"ibv_dealloc_mw", "ibv_post_send"})
    void aPeersAccessThroughADeallocatedWindowIsARemoteAccessError() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow mw = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            bind(lo, mw, 512, 64, 40);
            RemoteMemory window = mw.remote();
            lo.a.post(new SendRequest().wrId(41).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8).remote(window));
            lo.take().checkSuccess();
            mw.close();
            assertTrue(mw.isClosed());
            lo.a.post(new SendRequest().wrId(42).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8).remote(window));
            WorkCompletion revoked = lo.take();
            assertEquals(42, revoked.wrId());
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, revoked.status());
            assertEquals(QueuePairState.ERR, lo.a.state());
        }
    }

    /**
     * rxe keeps a reference on the queue pair of a bound type 2 window until the window is
     * invalidated or deallocated, and destroying the queue pair first waits for that reference to
     * time out (~50 s under emulation, on 6.1 and 6.12). So a queue pair closes the windows bound
     * through it first, directly and in the context's cascade (which reaches the queue pairs
     * through their completion queue, before the protection domain). The order is what is
     * checked; the bounded waits are far below rxe's and only turn a regression into a failure
     * instead of a slow pass.
     */
    @Test
    @Exercises({"ibv_dealloc_mw", "ibv_destroy_qp"})
    void closingAQueuePairDeallocatesTheWindowsBoundThroughItFirst() throws InterruptedException {
        Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS);
        try {
            MemoryWindow throughB = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            MemoryWindow throughA = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            MemoryWindow unbound = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            bind(lo, throughB, 0, 64, 30);
            bindThroughA(lo, throughA, 31);
            assertTrue(lo.b.dependents().contains(throughB), "b's dependents: " + lo.b.dependents());
            assertFalse(lo.b.dependents().contains(throughA));

            closeWithin(lo.b::close, lo.b.toString());
            assertTrue(throughB.isClosed(), "the window bound through b closed with it");
            assertFalse(throughA.isClosed(), "a window bound through another queue pair stays");
            assertFalse(unbound.isClosed());
            assertFalse(lo.a.isClosed());

            closeWithin(lo::close, lo.context.toString());
            assertTrue(throughA.isClosed());
            assertTrue(unbound.isClosed());
        } finally {
            lo.close();
        }
    }

    /** Runs {@code close} on another thread and fails if it has not returned within the test timeout. */
    private static void closeWithin(Runnable close, String what) throws InterruptedException {
        Thread closer = Thread.ofPlatform().name("close " + what).start(close);
        assertTrue(closer.join(TestDevices.TIMEOUT), "closing " + what + " has not returned within "
                + TestDevices.TIMEOUT + ": did it wait for rxe's reference from a bound type 2 window?");
    }

    /** Binds {@code mw} through a (a's own region: memA is not bindable, so a region registered for it). */
    private static void bindThroughA(Loopback lo, MemoryWindow mw, long wrId) {
        MemoryRegion region = lo.pd.allocate(4096, BINDABLE);
        lo.a.post(new SendRequest().wrId(wrId).opcode(SendOpcode.BIND_MW).sgeCount(0)
                .bind(mw, region, 0, 64, READ_WRITE));
        WorkCompletion bound = lo.take().checkSuccess();
        assertEquals(wrId, bound.wrId());
    }

    @Test
    void bindRequestsRefuseMisuse() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow type1 = lo.pd.allocateMemoryWindow();
            MemoryWindow type2 = lo.pd.allocateMemoryWindow(MemoryWindowType.TYPE_2);
            assertThrows(IllegalArgumentException.class, () -> new SendRequest().bind(type1, lo.memB, 0, 8, READ_WRITE));
            assertThrows(IllegalArgumentException.class,
                    () -> lo.b.bind(type2, lo.memB, 0, 8, READ_WRITE, 1), "type 2 is not bound with ibv_bind_mw");
            assertThrows(IllegalStateException.class,
                    () -> lo.b.post(new SendRequest().opcode(SendOpcode.BIND_MW).sgeCount(0)), "nothing to bind");
            assertThrows(IllegalStateException.class,
                    () -> lo.b.post(new SendRequest().opcode(SendOpcode.LOCAL_INV).sgeCount(0)), "no key");
            int key = type2.rkey();
            assertThrows(IllegalArgumentException.class, () -> lo.b.post(new SendRequest().opcode(SendOpcode.BIND_MW)
                    .sgeCount(0).bind(type2, lo.memA, 0, 8, READ_WRITE)), "memA was registered without MW_BIND");
            assertEquals(key, type2.rkey(), "a refused bind claims no key");
        }
    }

    private static void bind(Loopback lo, MemoryWindow mw, long offset, long length, long wrId) {
        lo.b.post(new SendRequest().wrId(wrId).opcode(SendOpcode.BIND_MW).sgeCount(0)
                .bind(mw, lo.memB, offset, length, READ_WRITE));
        WorkCompletion bound = lo.take().checkSuccess();
        assertEquals(wrId, bound.wrId());
        assertEquals(WorkCompletionOpcode.BIND_MW, bound.opcode());
    }
}
