// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.EnumSet;
import java.util.Set;

/**
 * Tunables of the INIT -> RTR -> RTS transitions; {@link #DEFAULTS} suits a local fabric.
 *
 * @param remoteAccess      what peers may do through the QP (READ/WRITE/atomics; each memory
 *                          region's own rights are checked as well)
 * @param minRnrTimer       how long a peer waits before retrying a SEND that found no receive
 *                          (IB-encoded, 12 = 0.64 ms)
 * @param timeout           local ACK timeout, 4.096 us * 2^timeout (14 = 67 ms)
 * @param retryCount        transport retries before RETRY_EXC_ERR (0-7); Soft-RoCE (rxe, Linux
 *                          6.1) takes 7 as "retry forever", as it does an RNR retry count of 7,
 *                          so a peer that never answers fails a work request there only with 6
 *                          or less
 * @param rnrRetry          RNR retries before RNR_RETRY_EXC_ERR (0-6, 7 = forever)
 * @param maxReadAtomic     RDMA READ/atomics this QP may have outstanding as initiator
 * @param maxDestReadAtomic RDMA READ/atomics this QP accepts at once as responder
 * @param qkey              the Q_Key of a UD queue pair
 * @param hopLimit          the GRH hop limit of global routes; on RoCE the kernel resolves the
 *                          route of a connected queue pair and uses the route's hop limit instead
 *                          (Soft-RoCE reads back 64, the IPv4 default TTL, see {@link QueuePair#query()})
 * @param serviceLevel      the service level (0-15) of the address vector: on InfiniBand it
 *                          selects the virtual lane, on RoCE the provider maps it to the
 *                          Ethernet priority (PCP) of the packets
 * @param trafficClass      the GRH traffic class (0-255) of RoCE/global routes; on RoCE v2 it
 *                          becomes the IP header's DSCP and ECN bits
 * @param flowLabel         the GRH flow label (0-0xFFFFF) of RoCE/global routes: on RoCE v2
 *                          over IPv6 the IPv6 header's flow label, which ECMP hashes on; 0
 *                          lets the provider derive one (rxe and mlx5 derive the UDP source
 *                          port from it when it is set)
 * @param pkeyIndex         the P_Key table entry (of the port) a queue pair's INIT transition
 *                          names: its partition on InfiniBand; on RoCE only entry 0 exists
 */
public record ConnectionOptions(Set<Access> remoteAccess, int minRnrTimer, int timeout, int retryCount, int rnrRetry,
                                int maxReadAtomic, int maxDestReadAtomic, int qkey, int hopLimit, int serviceLevel,
                                int trafficClass, int flowLabel, int pkeyIndex) {
    /**
     * Remote READ/WRITE/atomics allowed, RNR timer 12, timeout 14, 7 retries, 1 outstanding READ
     * each way, Q_Key 0x11111111, hop limit 64, service level 0, traffic class 0.
     */
    public static final ConnectionOptions DEFAULTS = new ConnectionOptions(
            EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC), 12, 14, 7, 7, 1, 1,
            0x11111111, 64, 0, 0, 0, 0);

    /** Validates ranges and copies the access set. */
    public ConnectionOptions {
        remoteAccess = remoteAccess.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(remoteAccess));
        check("minRnrTimer", minRnrTimer, 31);
        check("timeout", timeout, 31);
        check("retryCount", retryCount, 7);
        check("rnrRetry", rnrRetry, 7);
        check("maxReadAtomic", maxReadAtomic, 255);
        check("maxDestReadAtomic", maxDestReadAtomic, 255);
        check("hopLimit", hopLimit, 255);
        check("serviceLevel", serviceLevel, 15);
        check("trafficClass", trafficClass, 255);
        check("flowLabel", flowLabel, 0xFFFFF);
        check("pkeyIndex", pkeyIndex, 0xFFFF);
    }

    /**
     * The options before the flow label and P_Key index existed: both 0 (the provider's flow
     * label, the port's first partition).
     *
     * @param remoteAccess      see the record's components
     * @param minRnrTimer       see the record's components
     * @param timeout           see the record's components
     * @param retryCount        see the record's components
     * @param rnrRetry          see the record's components
     * @param maxReadAtomic     see the record's components
     * @param maxDestReadAtomic see the record's components
     * @param qkey              see the record's components
     * @param hopLimit          see the record's components
     * @param serviceLevel      see the record's components
     * @param trafficClass      see the record's components
     */
    public ConnectionOptions(Set<Access> remoteAccess, int minRnrTimer, int timeout, int retryCount, int rnrRetry,
                             int maxReadAtomic, int maxDestReadAtomic, int qkey, int hopLimit, int serviceLevel,
                             int trafficClass) {
        this(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic, maxDestReadAtomic, qkey,
                hopLimit, serviceLevel, trafficClass, 0, 0);
    }

    private static void check(String name, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be within 0.." + max + ", not " + value);
        }
    }

    /**
     * {@return these options with another RNR retry count}
     *
     * @param rnrRetry 0..7; 0 fails a SEND at once when the peer has no receive posted, 7 retries forever
     */
    public ConnectionOptions withRnrRetry(int rnrRetry) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }

    /**
     * {@return these options with other remote access rights}
     *
     * @param remoteAccess what peers may do to this side's memory (REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC)
     */
    public ConnectionOptions withRemoteAccess(Set<Access> remoteAccess) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }

    /**
     * {@return these options with another ACK timeout and retry count}
     *
     * @param timeout    0..31: the local ACK timeout is 4.096 us x 2^timeout (0 = infinite)
     * @param retryCount 0..7 retransmissions before the send fails with RETRY_EXC_ERR (7 retries
     *                   forever on Soft-RoCE: the budget (retryCount + 1) x timeout holds for 0..6)
     */
    public ConnectionOptions withTimeout(int timeout, int retryCount) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }

    /**
     * {@return these options with another service level, the address vector's SL}
     *
     * @param serviceLevel 0..15
     */
    public ConnectionOptions withServiceLevel(int serviceLevel) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }

    /**
     * {@return these options with another GRH traffic class}
     *
     * @param trafficClass 0..255
     */
    public ConnectionOptions withTrafficClass(int trafficClass) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }

    /**
     * {@return these options with another GRH flow label}
     *
     * @param flowLabel 0..0xFFFFF; 0 for none
     */
    public ConnectionOptions withFlowLabel(int flowLabel) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }

    /**
     * {@return these options with another P_Key table index for the INIT transition}
     *
     * @param pkeyIndex an index of the port's P_Key table ({@link Context#pkey}), 0..0xFFFF
     */
    public ConnectionOptions withPkeyIndex(int pkeyIndex) {
        return new ConnectionOptions(remoteAccess, minRnrTimer, timeout, retryCount, rnrRetry, maxReadAtomic,
                maxDestReadAtomic, qkey, hopLimit, serviceLevel, trafficClass, flowLabel, pkeyIndex);
    }
}
