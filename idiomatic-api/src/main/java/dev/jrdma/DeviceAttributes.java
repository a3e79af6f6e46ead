// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_device_attr_ex;
import dev.jrdma.bindings.generated.ibv_packet_pacing_caps;
import dev.jrdma.bindings.generated.ibv_rss_caps;
import dev.jrdma.bindings.generated.ibv_tm_caps;
import java.lang.foreign.MemorySegment;

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
 * @param maxDeviceMemorySize     device memory available for allocation, bytes (extended; 0: no
 *                                {@link DeviceMemory})
 * @param maxCqModerationCount    the largest completion count {@link CompletionQueue#moderate} takes (extended; 0: no moderation)
 * @param maxCqModerationPeriod   the longest moderation period, microseconds (extended)
 * @param maxTsoBytes             the largest TCP segmentation offload send, bytes (extended; 0: no TSO, so no
 *                                {@link SendOp#TSO})
 * @param tagMatching             tag-matching limits (extended; all 0 without tag matching)
 * @param rss                     receive-side scaling limits (extended; all 0 without RSS)
 * @param packetPacing            packet pacing limits, for {@link RateLimit} (extended; all 0 without pacing)
 * @param rawPacketCapabilities   {@code raw_packet_caps}, {@code enum ibv_raw_packet_caps} bits (extended)
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long systemImageGuid, long maxMrSize,
                               long pageSizeCap, int vendorId, int vendorPartId, int hardwareVersion, int maxQp,
                               int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr, int maxPd, int maxQpRdAtom,
                               int maxQpInitRdAtom, int maxSrq, int maxAh, int maxMw,
                               AtomicCapability atomicCapability, int physicalPortCount, int deviceCapabilityFlags,
                               long deviceCapabilityFlagsEx, long completionTimestampMask, long hcaCoreClock,
                               long odpGeneralCapabilities, long maxDeviceMemorySize, int maxCqModerationCount,
                               int maxCqModerationPeriod, int maxTsoBytes,
                               TagMatching tagMatching, Rss rss, PacketPacing packetPacing,
                               int rawPacketCapabilities) {
    /** {@code IBV_DEVICE_SRQ_RESIZE} of {@code enum ibv_device_cap_flags}. */
    private static final int SRQ_RESIZE = 1 << 13;

    /** {@return whether shared receive queues can grow after creation ({@link SharedReceiveQueue#resize})} */
    public boolean canResizeSharedReceiveQueue() {
        return (deviceCapabilityFlags & SRQ_RESIZE) != 0;
    }

    /** {@code IBV_DEVICE_XRC} of {@code device_cap_flags}. */
    private static final int DEVICE_XRC = 1 << 20;
    /** {@code IBV_ODP_SUPPORT} of {@code odp_caps.general_caps}. */
    private static final long ODP_SUPPORT = 1;

    /** {@return whether the device offers XRC ({@code IBV_DEVICE_XRC}): {@link XrcDomain} and its SRQs and QPs} */
    public boolean supportsXrc() {
        return (deviceCapabilityFlags & DEVICE_XRC) != 0;
    }

    /** {@return whether the device offers on-demand paging ({@code IBV_ODP_SUPPORT}), for {@link Access#ON_DEMAND}} */
    public boolean supportsOnDemandPaging() {
        return (odpGeneralCapabilities & ODP_SUPPORT) != 0;
    }

    /**
     * Tag-matching limits ({@code struct ibv_tm_caps}), for {@link SharedReceiveQueue.Builder#tagMatching}.
     *
     * @param maxRendezvousHeaderSize largest rendezvous header
     * @param maxTags                 tags per SRQ (0: no tag matching)
     * @param flags                   {@code enum ibv_tm_cap_flags}
     * @param maxOperations           outstanding tag operations per SRQ
     * @param maxSges                 SGEs per tagged buffer
     */
    public record TagMatching(int maxRendezvousHeaderSize, int maxTags, int flags, int maxOperations, int maxSges) {
        static TagMatching read(MemorySegment attrEx) {
            MemorySegment tm = ibv_device_attr_ex.tm_caps(attrEx);
            return new TagMatching(ibv_tm_caps.max_rndv_hdr_size(tm), ibv_tm_caps.max_num_tags(tm), ibv_tm_caps.flags(tm),
                    ibv_tm_caps.max_ops(tm), ibv_tm_caps.max_sge(tm));
        }

        /** {@return whether the device does tag matching at all} */
        public boolean supported() {
            return maxTags > 0;
        }
    }

    /**
     * Receive-side scaling limits ({@code struct ibv_rss_caps} and {@code max_wq_type_rq}), for
     * {@link WorkQueue} and {@link RwqIndirectionTable}.
     *
     * @param supportedQpTypes             a bit per {@code enum ibv_qp_type} RSS works with
     * @param maxIndirectionTables         indirection tables per device
     * @param maxIndirectionTableSize      work queues per table
     * @param rxHashFieldsMask             {@code enum ibv_rx_hash_fields} bits the hash may use
     * @param rxHashFunctions              {@code enum ibv_rx_hash_function_flags} bits
     * @param maxReceiveWorkQueues         {@code max_wq_type_rq}: work queues per device (0: none)
     */
    public record Rss(int supportedQpTypes, int maxIndirectionTables, int maxIndirectionTableSize,
                      long rxHashFieldsMask, int rxHashFunctions, int maxReceiveWorkQueues) {
        static Rss read(MemorySegment attrEx) {
            MemorySegment rss = ibv_device_attr_ex.rss_caps(attrEx);
            return new Rss(ibv_rss_caps.supported_qpts(rss), ibv_rss_caps.max_rwq_indirection_tables(rss),
                    ibv_rss_caps.max_rwq_indirection_table_size(rss), ibv_rss_caps.rx_hash_fields_mask(rss),
                    Byte.toUnsignedInt(ibv_rss_caps.rx_hash_function(rss)), ibv_device_attr_ex.max_wq_type_rq(attrEx));
        }

        /** {@return whether the device offers work queues and indirection tables at all} */
        public boolean supported() {
            return maxReceiveWorkQueues > 0 || maxIndirectionTables > 0;
        }
    }

    /**
     * Packet pacing limits ({@code struct ibv_packet_pacing_caps}), for {@link RateLimit}.
     *
     * @param minKilobitsPerSecond the lowest rate limit
     * @param maxKilobitsPerSecond the highest rate limit (0: no pacing)
     * @param supportedQpTypes     a bit per {@code enum ibv_qp_type} pacing works with
     */
    public record PacketPacing(int minKilobitsPerSecond, int maxKilobitsPerSecond, int supportedQpTypes) {
        static PacketPacing read(MemorySegment attrEx) {
            MemorySegment pacing = ibv_device_attr_ex.packet_pacing_caps(attrEx);
            return new PacketPacing(ibv_packet_pacing_caps.qp_rate_limit_min(pacing),
                    ibv_packet_pacing_caps.qp_rate_limit_max(pacing), ibv_packet_pacing_caps.supported_qpts(pacing));
        }

        /** {@return whether the device paces packets at all} */
        public boolean supported() {
            return maxKilobitsPerSecond > 0;
        }
    }

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
