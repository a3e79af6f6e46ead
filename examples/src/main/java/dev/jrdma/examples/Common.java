package dev.jrdma.examples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.Context;
import dev.jrdma.GidEntry;
import dev.jrdma.GidType;
import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What every example needs: the device, the GID to send from, and text in native memory. */
final class Common {
    /** The port of the device the examples use; single-port devices (like rxe) only have port 1. */
    static final int PORT = 1;

    private Common() {}

    /** Opens {@code --device}, or the first device there is. */
    static Context open(Cli.Options options) {
        List<RdmaDevice> devices = Rdma.devices();
        RdmaDevice device = options.device()
                .map(name -> Rdma.device(name).orElseThrow(() -> new IllegalArgumentException(
                        "no RDMA device '" + name + "'; the devices are " + devices)))
                .orElseGet(() -> devices.stream().findFirst().orElseThrow(() -> new IllegalStateException(
                        "no RDMA device (for Soft-RoCE: rdma link add rxe0 type rxe netdev eth0)")));
        return device.open();
    }

    // @start region="gid"
    /**
     * The GID table index to send from. On InfiniBand packets are routed by LID and any entry
     * does; RoCE has no LIDs, so every packet carries a GRH routed by GID, and the GID must be
     * one the peer can reach: pick the RoCE v2 entry holding the interface's IPv4 address
     * (RoCE v2 packets are UDP/IP, routable like any IP traffic).
     */
    static GidEntry gid(Context context) {
        List<GidEntry> table = context.gidTable(PORT);
        return table.stream()
                .filter(entry -> entry.type() == GidType.ROCE_V2 && entry.ipv4().isPresent())
                .findFirst()
                .or(() -> table.stream().findFirst())   // InfiniBand: entry 0 is fine
                .orElseThrow(() -> new IllegalStateException("no GID on " + context.name() + " port " + PORT));
    }
    // @end

    /** Writes {@code text} (UTF-8) to {@code memory} at {@code offset}; returns its length in bytes. */
    static int put(MemorySegment memory, long offset, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(bytes, 0, memory, JAVA_BYTE, offset, bytes.length);
        return bytes.length;
    }

    /** The UTF-8 text in {@code [offset, offset + length)} of {@code memory}. */
    static String text(MemorySegment memory, long offset, long length) {
        return new String(memory.asSlice(offset, length).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
