// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static dev.jrdma.Refusals.assertRefused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.EveryKernel;
import dev.jrdma.testing.Exercises;
import org.junit.jupiter.api.Test;

/** Device memory, thread and parent domains, and importing objects from another process: all refused by rxe. */
@DeviceTest
@EveryKernel
class DeviceMemoryAndDomainsDeviceTest extends DeviceFixture {
    @Test
    @Exercises(value = {"ibv_alloc_dm", "ibv_free_dm", "ibv_memcpy_to_dm", "ibv_memcpy_from_dm", "ibv_reg_dm_mr"},
            refused = "rxe has no device memory (max_dm_size 0): librxe 44 leaves alloc_dm to libibverbs' EOPNOTSUPP"
                    + " stub, so there is no DM to copy to, register or free")
    void deviceMemoryIsRefused() {
        assertEquals(0, context.queryDevice().maxDeviceMemorySize(), "rxe reports no device memory");
        assertRefused(() -> context.allocateDeviceMemory(64), Verb.IBV_ALLOC_DM, context, "device memory");
        assertEquals(1, context.dependents().size(), "only the PD exists");
    }

    @Test
    @Exercises(value = {"ibv_alloc_td", "ibv_dealloc_td", "ibv_alloc_parent_domain"},
            refused = "rxe has no thread or parent domains: librxe 44 leaves alloc_td and alloc_parent_domain to"
                    + " libibverbs' EOPNOTSUPP stubs")
    void threadAndParentDomainsAreRefused() {
        assertRefused(context::allocateThreadDomain, Verb.IBV_ALLOC_TD, context, "thread domains");
        assertRefused(() -> context.allocateParentDomain(pd, null), Verb.IBV_ALLOC_PARENT_DOMAIN, context,
                "parent domains");
        assertEquals(1, context.dependents().size(), "only the PD exists");
        assertTrue(pd.dependents().isEmpty());
    }

    @Test
    @Exercises(value = {"ibv_import_device", "ibv_import_pd", "ibv_unimport_pd", "ibv_import_mr", "ibv_unimport_mr",
            "ibv_import_dm", "ibv_unimport_dm"},
            refused = "rxe cannot share objects between processes: librxe 44 has no import_context, import_pd,"
                    + " import_mr or import_dm (libibverbs' stubs answer EOPNOTSUPP), so nothing is ever unimported")
    void importingIsRefused() {
        MemoryRegion mr = pd.allocate(4096);
        // The context's own device file: a valid import, as another process would do it.
        OperationNotSupportedException e = org.junit.jupiter.api.Assertions.assertThrows(
                OperationNotSupportedException.class, () -> Context.importContext(context.commandFd()));
        assertEquals(Verb.IBV_IMPORT_DEVICE, e.verb());
        assertTrue(e.getMessage().contains(context.name() + " does not implement importing a context"), e.getMessage());
        assertRefused(() -> context.importProtectionDomain(pd.handleNumber()), Verb.IBV_IMPORT_PD, context,
                "importing protection domains");
        assertRefused(() -> pd.importMemoryRegion(mr.handleNumber()), Verb.IBV_IMPORT_MR, context,
                "importing memory regions");
        assertRefused(() -> context.importDeviceMemory(0), Verb.IBV_IMPORT_DM, context, "importing device memory");
        assertEquals(1, pd.dependents().size(), "only the region exists");
    }
}
