// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

@DeviceTest
@EveryKernel
class MemoryWindowDeviceTest {
    private static final Set<Access> BINDABLE = EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND);

    private static MemoryWindow allocateOrSkip(ProtectionDomain pd) {
        try {
            return pd.allocateMemoryWindow();
        } catch (OperationNotSupportedException e) {
            Assumptions.abort("the provider has no memory windows: " + e.getMessage());
            throw e;
        }
    }

    @Test
    @Exercises({"ibv_alloc_mw", "ibv_bind_mw"})
    void aBoundWindowGrantsAndAnUnbindRevokesRemoteAccess() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow mw = allocateOrSkip(lo.pd);
            int before = mw.rkey();
            lo.b.bind(mw, lo.memB, 256, 128, EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ), 77);
            WorkCompletion bound = lo.take().checkSuccess();
            assertEquals(77, bound.wrId());
            assertEquals(WorkCompletionOpcode.BIND_MW, bound.opcode());
            assertNotEquals(before, mw.rkey(), "every bind issues a new rkey");
            RemoteMemory window = mw.remote();
            assertEquals(lo.memB.address() + 256, window.address());
            assertEquals(128, window.length());
            assertNotEquals(lo.memB.rkey(), window.rkey());

            lo.memA.segment().set(JAVA_LONG, 0, 0x1122334455667788L);
            lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8).remote(window));
            lo.take().checkSuccess();
            assertEquals(0x1122334455667788L, lo.memB.segment().get(JAVA_LONG, 256));

            // The region itself grants no remote rights; only the window does.
            lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8)
                    .remote(lo.memB.remote(256, 8)));
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, lo.take().status());
        }
    }

    @Test
    void anUnbindRevokesTheWindowsKey() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow mw = allocateOrSkip(lo.pd);
            lo.b.bind(mw, lo.memB, 0, 64, EnumSet.of(Access.REMOTE_READ), 5);
            lo.take().checkSuccess();
            RemoteMemory window = mw.remote();
            lo.a.post(new SendRequest().wrId(6).opcode(SendOpcode.RDMA_READ).sge(lo.memA, 0, 8).remote(window));
            lo.take().checkSuccess();
            lo.b.unbind(mw, 7);
            assertEquals(7, lo.take().checkSuccess().wrId());
            assertEquals(0, mw.remote().length());
            lo.a.post(new SendRequest().wrId(8).opcode(SendOpcode.RDMA_READ).sge(lo.memA, 0, 8).remote(window));
            WorkCompletion revoked = lo.take();
            assertEquals(8, revoked.wrId());
            assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, revoked.status());
        }
    }

    @Test
    @Exercises("ibv_dealloc_mw")
    void windowsRefuseMisuseAndCloseWithTheirRegion() {
        try (Loopback lo = new Loopback(QueuePairType.RC, BINDABLE, ConnectionOptions.DEFAULTS)) {
            MemoryWindow mw = allocateOrSkip(lo.pd);
            assertThrows(IllegalArgumentException.class, () -> lo.b.bind(mw, lo.memA, 0, 64,
                    EnumSet.of(Access.REMOTE_READ), 1), "memA was registered without MW_BIND");
            assertThrows(IndexOutOfBoundsException.class, () -> lo.b.bind(mw, lo.memB, Loopback.SIZE - 8, 64,
                    EnumSet.of(Access.REMOTE_READ), 1));
            lo.b.bind(mw, lo.memB, 0, 64, EnumSet.of(Access.REMOTE_READ), 3);
            lo.take().checkSuccess();
            assertTrue(lo.memB.dependents().contains(mw));
            lo.memB.close();
            assertTrue(mw.isClosed(), "closing the region closes the window bound to it first");
            assertThrows(IllegalStateException.class, mw::rkey);
        }
    }

    /**
     * Type 3 (rdma-core's tests/test_mr.py test_reg_mw_wrong_type): jrdma cannot be asked for
     * it, {@link MemoryWindowType#of} names the two types there are; asked directly, the
     * provider refuses it too.
     */
    @Test
    @Exercises("ibv_alloc_mw")
    void typeThreeIsRefusedByJrdmaAndByTheProvider() {
        assertEquals(MemoryWindowType.TYPE_1, MemoryWindowType.of(1));
        assertEquals(MemoryWindowType.TYPE_2, MemoryWindowType.of(2));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MemoryWindowType.of(3));
        assertEquals("memory window type 3 does not exist: enum ibv_mw_type has IBV_MW_TYPE_1 (1) and IBV_MW_TYPE_2 (2)",
                e.getMessage());
        try (Context context = TestDevices.device().open(); java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            java.lang.foreign.MemorySegment errno = dev.jrdma.bindings.shim.Errno.allocate(arena);
            java.lang.foreign.MemorySegment mw = dev.jrdma.bindings.shim.MemoryWindowVerbs.ibv_alloc_mw(errno,
                    pd.handle(), 3);
            if (mw.address() != 0) {
                dev.jrdma.bindings.shim.MemoryWindowVerbs.ibv_dealloc_mw(mw);
            }
            assertEquals(0, mw.address(), "the provider made a type 3 window");
            assertEquals(dev.jrdma.bindings.shim.Errno.EINVAL, dev.jrdma.bindings.shim.Errno.get(errno));
        }
    }
}
