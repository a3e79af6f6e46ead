// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * A route to a remote port ({@code struct ibv_ah_attr}), as {@link Context#replyAddress}
 * derives it from a received datagram: what an address handle back to its sender holds.
 *
 * @param port           the local port it leaves through
 * @param lid            the destination LID (0 on RoCE, which routes by GID only)
 * @param serviceLevel   the service level
 * @param global         whether the route carries a GRH (always on RoCE)
 * @param gid            the destination GID: the sender's (meaningful when {@code global})
 * @param sourceGidIndex the local GID table entry to send from: the one the datagram arrived at
 * @param hopLimit       the hop limit (IPv4 TTL on RoCE v2)
 * @param trafficClass   the traffic class (IPv4 TOS on RoCE v2)
 * @param flowLabel      the IPv6 flow label
 */
public record AddressVector(int port, int lid, int serviceLevel, boolean global, Gid gid, int sourceGidIndex,
                            int hopLimit, int trafficClass, int flowLabel) {
}
