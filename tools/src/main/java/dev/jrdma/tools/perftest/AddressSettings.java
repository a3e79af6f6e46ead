// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * Addressing, QoS, multicast and ports: -T/--tclass, --flow_label, -L, --pkey_index, --ipv6, --ipv6-addr, --bind_source_ip, -z, --dont_xchg_versions, --force-link, -g, -M, --connectionless, -O, --dualport.
 * <p>
 * One group of {@link PerftestSettings}, resolved from its picocli mixin by
 * {@code PerftestCommands}; {@link #DEFAULT} is perftest's behaviour when none of the group's
 * options is given (and what a test that does not offer them runs with).
 */
public record AddressSettings() {
    /** None of the group's options given. */
    public static final AddressSettings DEFAULT = new AddressSettings();
}
