// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.Refusals.assertRefused;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import dev.jrdma.testing.Kernel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Registration at a chosen iova (works on rxe), and the memory-region verbs rxe refuses. */
@DeviceTest
@EveryKernel
class MemoryRegistrationDeviceTest {
    private static final long IOVA = 0x10000;

    @Test
    @Exercises({"ibv_reg_mr_iova", "ibv_reg_mr_iova2"})
    void aRegionAtAChosenIovaIsReachedThroughThatAddress() {
        try (Loopback lo = new Loopback(); Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(Loopback.SIZE, 4096);
            MemoryRegion region = lo.pd.register(memory, IOVA, Loopback.ALL);
            try {
                assertEquals(IOVA, region.address());
                assertEquals(IOVA + 256, region.remote(256, 8).address(), "peers address it from the iova");
                // A peer's RDMA WRITE to iova + 256 lands at byte 256 of the memory.
                lo.memA.segment().set(JAVA_LONG, 0, 0x0102030405060708L);
                lo.a.post(new SendRequest().wrId(1).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8)
                        .remote(region.remote(256, 8)));
                assertEquals(1, lo.take().checkSuccess().wrId());
                assertEquals(0x0102030405060708L, memory.get(JAVA_LONG, 256));
                // As a local SGE (lkey, iova-based address): an RDMA READ into byte 512 of it.
                lo.memB.segment().set(JAVA_LONG, 64, 0x1112131415161718L);
                lo.a.post(new SendRequest().wrId(2).opcode(SendOpcode.RDMA_READ).sge(region, 512, 8)
                        .remote(lo.memB.remote(64, 8)));
                assertEquals(2, lo.take().checkSuccess().wrId());
                assertEquals(0x1112131415161718L, memory.get(JAVA_LONG, 512));
                // The virtual address is not the region's address for the device.
                lo.a.post(new SendRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE).sge(lo.memA, 0, 8)
                        .remote(new RemoteMemory(memory.address() + 256, 8, region.rkey())));
                WorkCompletion wrong = lo.take();
                assertEquals(3, wrong.wrId());
                assertEquals(WorkCompletionStatus.REM_ACCESS_ERR, wrong.status());
            } finally {
                region.close();
            }
        }
    }

    @Test
    @Exercises(value = {"ibv_rereg_mr", "ibv_advise_mr", "ibv_alloc_null_mr", "ibv_reg_dmabuf_mr"},
            refused = "librxe 44 leaves rereg_mr, advise_mr, alloc_null_mr and reg_dmabuf_mr to libibverbs'"
                    + " EOPNOTSUPP stubs (rxe gains advise_mr only in rdma-core 59 and kernel 6.14)")
    void reRegistrationAdviceNullAndDmabufRegionsAreRefused() {
        try (Context context = TestDevices.device().open()) {
            ProtectionDomain pd = context.allocateProtectionDomain();
            MemoryRegion region = pd.allocate(8192);
            Set<Access> wider = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ);
            assertRefused(() -> region.reregister(wider), Verb.IBV_REREG_MR, context, "re-registering memory regions");
            assertEquals(Access.DEFAULT, region.access(), "the refused re-registration changed nothing");
            assertRefused(() -> region.prefetch(0, 4096), Verb.IBV_ADVISE_MR, context, "advice on memory regions");
            assertRefused(pd::allocateNullMemoryRegion, Verb.IBV_ALLOC_NULL_MR, context, "the null memory region");
            // No dmabuf exporter (GPU) exists in the VM; the provider refuses before looking at the fd.
            assertRefused(() -> pd.registerDmabuf(-1, 0, 4096, 0, Access.DEFAULT), Verb.IBV_REG_DMABUF_MR, context,
                    "dmabuf memory regions");
            assertEquals(1, pd.dependents().size(), "only the region exists");
        }
    }

    @Test
    @Exercises(value = {"ibv_reg_mr"},
            refused = "rxe has no on-demand paging on kernels 6.1 and 6.12 (odp_caps.general_caps 0); 6.1 answers"
                    + " IBV_ACCESS_ON_DEMAND with EINVAL, so jrdma checks the capability before registering")
    void onDemandPagingIsRefusedByTheDevicesCapability() {
        try (Context context = TestDevices.device().open(); Arena arena = Arena.ofConfined()) {
            assertFalse(context.queryDevice().supportsOnDemandPaging(), "rxe reports no IBV_ODP_SUPPORT");
            ProtectionDomain pd = context.allocateProtectionDomain();
            OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class,
                    () -> pd.allocate(4096, EnumSet.of(Access.LOCAL_WRITE, Access.ON_DEMAND)));
            assertEquals(Verb.IBV_REG_MR, e.verb());
            assertTrue(e.getMessage().contains(context.name() + " does not implement on-demand paging"), e.getMessage());
            // The provider's own answer, asked directly. Measured: kernel 6.1 says EINVAL (which is why
            // the API asks the capability), 6.12 says EOPNOTSUPP.
            int expected = Kernel.atLeast(6, 12) ? Errno.EOPNOTSUPP : Errno.EINVAL;
            MemorySegment memory = arena.allocate(4096, 4096);
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment mr = ErrnoVerbs.ibv_reg_mr_iova2(errno, pd.handle(), memory, 4096, memory.address(),
                    Access.flags(EnumSet.of(Access.LOCAL_WRITE, Access.ON_DEMAND)));
            assertEquals(0, mr.address(), "rxe registered an ODP region after all");
            assertEquals(expected, Errno.get(errno), "on kernel " + Kernel.release());
            assertTrue(pd.dependents().isEmpty());
        }
    }
}
