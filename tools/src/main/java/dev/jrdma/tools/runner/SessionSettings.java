// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Context;
import dev.jrdma.DeviceAttributes;
import dev.jrdma.Gid;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.Mtu;
import dev.jrdma.PortAttributes;
import dev.jrdma.PortState;
import dev.jrdma.tools.perftest.PerftestSettings;
import dev.jrdma.tools.perftest.Verb;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * What the opened device and the exchange with the peer decided for a session: the port, the
 * GID (null on InfiniBand, where no GID is exchanged), the read depth and inline size, then the
 * agreed MTU and the message sizes it allows. Immutable: the measurement's {@link Side} and its
 * warm-up twins share the device's choices, each with its own MTU and sizes.
 *
 * @param mtu the agreed MTU; null until the preamble (and {@code sizes} with it)
 */
record SessionSettings(Context context, PortAttributes port, int gidIndex, Gid gid, int outReads, int inlineSize,
        Mtu mtu, List<Long> sizes) {

    /** The port, GID, read depth and inline size on the opened device; no MTU agreed yet. */
    static SessionSettings of(PerftestSettings s, Context context) throws IOException {
        DeviceAttributes attrs = context.queryDevice();
        if (s.ibPort() > attrs.physicalPortCount()) {
            throw new IOException(context.name() + " has " + attrs.physicalPortCount() + " port(s), no port " + s.ibPort());
        }
        PortAttributes port = context.queryPort(s.ibPort());
        if (port.state() != PortState.ACTIVE) {
            throw new IOException(context.name() + " port " + s.ibPort() + " is " + port.state() + ", not ACTIVE");
        }
        Addressing.check(s, context, attrs.physicalPortCount(), port.isEthernet());
        GidChoice gid = chooseGid(s, context, port);
        PostResources.checkDevice(context, s.posting());   // --no_lock: before the warm-up builds anything
        Verb verb = s.kind().verb();
        int outReads;
        if (verb == Verb.READ || verb == Verb.ATOMIC) {
            int max = Math.min(attrs.maxQpRdAtom(), attrs.maxQpInitRdAtom());
            outReads = s.outReads() > 0 ? Math.min(s.outReads(), max) : max;
        } else {
            outReads = 1;
        }
        int inlineSize = s.inlineSize() >= 0 ? s.inlineSize()
                : context.name().startsWith("mlx") ? s.kind().defaultInline(s.connection()) : 0;
        return new SessionSettings(context, port, gid.index(), gid.gid(), outReads, inlineSize, null, null);
    }

    private record GidChoice(int index, Gid gid) {
        GidChoice(GidEntry e) {
            this(e.index(), e.gid());
        }
    }

    /** The GID and its index; on InfiniBand without -x the GID is null (LID routing). */
    private static GidChoice chooseGid(PerftestSettings s, Context context, PortAttributes port) {
        int gidIndex = s.gidIndex() >= 0 ? s.gidIndex() : Addressing.defaultGidIndex(s);
        if (gidIndex >= 0) {
            Optional<GidEntry> e = context.gid(s.ibPort(), gidIndex);
            if (e.isEmpty()) {
                throw new IllegalArgumentException("GID index " + gidIndex + " of " + context.name() + " port "
                        + s.ibPort() + " is not in use (see 'jrdma devinfo -v')");
            }
            return new GidChoice(e.get());
        }
        List<GidEntry> table = context.gidTable(s.ibPort());
        if (!port.isEthernet()) {
            // InfiniBand: LID routing, no GID exchanged (perftest's gid_index -1)
            return new GidChoice(table.isEmpty() ? 0 : table.getFirst().index(), null);
        }
        return new GidChoice(Addressing.preferredGid(s, table)
                .or(() -> table.stream().filter(g -> g.type() == GidType.ROCE_V2).findFirst())
                .or(() -> table.stream().findFirst())
                .orElseThrow(() -> new IllegalStateException(context.name() + " port " + s.ibPort()
                        + " has no GID (RoCE needs one)")));
    }

    /** This side's MTU: -m, or the port's active one. */
    Mtu localMtu(PerftestSettings s) {
        return s.mtu() == 0 ? port.activeMtu() : mtuOf(s.mtu());
    }

    private static Mtu mtuOf(int bytes) {
        for (Mtu m : Mtu.values()) {
            if (m.bytes() == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("no MTU of " + bytes + " bytes");
    }

    /** The same device choices with {@code agreed} and the sizes it allows. */
    SessionSettings agreed(Mtu agreed, List<Long> agreedSizes) {
        return new SessionSettings(context, port, gidIndex, gid, outReads, inlineSize, agreed, agreedSizes);
    }

    int mtuBytes() {
        return mtu.bytes();
    }

    /** The GID index as the header and rdma_cm's control connection name it: -1 without a GID. */
    int announcedGidIndex() {
        return gid == null ? -1 : gidIndex;
    }
}
