// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DefaultGidTest {
    private static GidEntry entry(int index, GidType type, Gid gid) {
        return new GidEntry(index, 1, gid, type, 3);
    }

    /** ::ffff:10.200.0.1, fe80::1 and 2001:db8::1 as GIDs. */
    private static final Gid IPV4 = new Gid(0, 0x0000_ffff_0ac8_0001L);
    private static final Gid LINK_LOCAL = new Gid(0xfe80_0000_0000_0000L, 1);
    private static final Gid GLOBAL = new Gid(0x2001_0db8_0000_0000L, 1);

    @Test
    void roceV2WithIpv4WinsOverLowerIndexes() {
        List<GidEntry> table = List.of(entry(0, GidType.ROCE_V1, LINK_LOCAL), entry(1, GidType.ROCE_V2, LINK_LOCAL),
                entry(2, GidType.ROCE_V1, IPV4), entry(3, GidType.ROCE_V2, IPV4));
        assertEquals(3, DefaultGid.choose(table, LinkLayer.ETHERNET).orElseThrow().index());
    }

    @Test
    void withoutIpv4GlobalBeforeLinkLocalBeforeRoceV1() {
        List<GidEntry> table = List.of(entry(0, GidType.ROCE_V1, LINK_LOCAL), entry(1, GidType.ROCE_V2, LINK_LOCAL),
                entry(4, GidType.ROCE_V2, GLOBAL));
        assertEquals(4, DefaultGid.choose(table, LinkLayer.ETHERNET).orElseThrow().index());
        assertEquals(1, DefaultGid.choose(table.subList(0, 2), LinkLayer.ETHERNET).orElseThrow().index());
    }

    @Test
    void infinibandTakesTheFirstEntryAndAnEmptyTableHasNone() {
        List<GidEntry> table = List.of(entry(2, GidType.IB, GLOBAL), entry(0, GidType.IB, LINK_LOCAL));
        assertEquals(0, DefaultGid.choose(table, LinkLayer.INFINIBAND).orElseThrow().index());
        assertEquals(Optional.empty(), DefaultGid.choose(List.of(), LinkLayer.ETHERNET));
    }
}
