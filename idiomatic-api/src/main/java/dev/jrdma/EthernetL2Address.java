// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.util.OptionalInt;

/**
 * The Ethernet next hop of a RoCE destination: what {@link Context#resolveEthernetAddress}
 * learned from the kernel's neighbour table (ARP or IPv6 neighbour discovery).
 *
 * @param mac  the MAC address as {@code ip link} prints it, e.g. {@code 52:54:00:12:34:56}
 * @param vlan the VLAN id, when the route leaves through a VLAN interface
 */
public record EthernetL2Address(String mac, OptionalInt vlan) {
}
