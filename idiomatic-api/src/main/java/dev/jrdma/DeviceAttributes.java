// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * Capabilities of a device ({@code struct ibv_device_attr_ex}); from {@link Context#queryDevice()}.
 *
 * @param firmwareVersion         firmware version text
 * @param nodeGuid                node GUID (as a number, see {@link RdmaDevice#nodeGuid()})
 * @param systemImageGuid         system image GUID (as a number)
 * @param maxMrSize               largest registrable memory region, bytes (unsigned: rxe reports 2^64-1 as -1)
 * @param pageSizeCap             supported page sizes, a bit per size
 * @param vendorId                IEEE vendor id
 * @param vendorPartId            vendor part id
 * @param hardwareVersion         hardware version
 * @param maxQp                   max queue pairs
 * @param maxQpWr                 max outstanding work requests per queue
 * @param maxSge                  max scatter/gather entries per work request
 * @param maxCq                   max completion queues
 * @param maxCqe                  max entries per completion queue
 * @param maxMr                   max memory regions
 * @param maxPd                   max protection domains
 * @param maxQpRdAtom             max RDMA READ/atomic requests a QP can answer at once
 * @param maxQpInitRdAtom         max RDMA READ/atomic requests a QP can have outstanding
 * @param maxSrq                  max shared receive queues
 * @param maxAh                   max address handles
 * @param maxMw                   max memory windows
 * @param atomicCapability        atomicity guarantee of atomic operations
 * @param physicalPortCount       number of ports
 * @param deviceCapabilityFlags   {@code device_cap_flags} of the basic query
 * @param deviceCapabilityFlagsEx {@code device_cap_flags_ex} (extended query; 0 when unsupported)
 * @param completionTimestampMask mask of the completion timestamp (extended; 0 when unsupported)
 * @param hcaCoreClock            device clock in kHz (extended; 0 when unsupported)
 * @param odpGeneralCapabilities  on-demand paging capabilities (extended; 0 when unsupported)
 * @param maxDeviceMemorySize     device memory available for allocation, bytes (extended)
 * @param maxCqModerationCount    the largest completion count {@link CompletionQueue#moderate} takes (extended; 0: no moderation)
 * @param maxCqModerationPeriod   the longest moderation period, microseconds (extended)
 * @param maxTsoBytes             the largest TCP segmentation offload send, bytes (extended; 0: no TSO, so no
 *                                {@link SendOp#TSO})
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long systemImageGuid, long maxMrSize,
                               long pageSizeCap, int vendorId, int vendorPartId, int hardwareVersion, int maxQp,
                               int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr, int maxPd, int maxQpRdAtom,
                               int maxQpInitRdAtom, int maxSrq, int maxAh, int maxMw,
                               AtomicCapability atomicCapability, int physicalPortCount, int deviceCapabilityFlags,
                               long deviceCapabilityFlagsEx, long completionTimestampMask, long hcaCoreClock,
                               long odpGeneralCapabilities, long maxDeviceMemorySize, int maxCqModerationCount,
                               int maxCqModerationPeriod, int maxTsoBytes) {
    /** {@code IB_UVERBS_DEVICE_ATOMIC_WRITE}: a bit of {@code device_cap_flags_ex} above what verbs.h 44 names. */
    private static final long ATOMIC_WRITE = 1L << 40;

    /**
     * {@return whether the device executes atomic writes ({@link SendOp#ATOMIC_WRITE}), from
     * {@code device_cap_flags_ex}} Ask this first: librxe 44 lets a queue pair be created for
     * atomic write whatever the kernel, and rxe in Linux 6.1 then fails each one with a local QP
     * operation error; rxe from Linux 6.3 reports the capability and executes them.
     */
    public boolean supportsAtomicWrite() {
        return (deviceCapabilityFlagsEx & ATOMIC_WRITE) != 0;
    }
}
