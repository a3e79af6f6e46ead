// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static dev.jrdma.bindings.generated.rdma_h.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.bindings.generated.ibv_gid_entry;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.InlineVerbs;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.testing.TestDevice;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/** Device discovery on the raw layer, shared by the raw device tests and the loopback demo. */
final class RawDevices {
    private RawDevices() {}

    /** Names of the devices libibverbs lists (empty when it lists none, including a NULL list). */
    static List<String> names() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment num = arena.allocate(JAVA_INT);
            MemorySegment list = ErrnoVerbs.ibv_get_device_list(errno, num);
            List<String> names = new ArrayList<>();
            if (list.address() == 0) {
                return names;   // ibv_free_device_list(NULL) would crash
            }
            try {
                MemorySegment array = list.reinterpret(ADDRESS.byteSize() * (num.get(JAVA_INT, 0) + 1L));
                for (int i = 0; i < num.get(JAVA_INT, 0); i++) {
                    names.add(ibv_get_device_name(array.getAtIndex(ADDRESS, i)).getString(0));
                }
            } finally {
                ibv_free_device_list(list);
            }
            return names;
        }
    }

    /**
     * Index of the first RoCE v2 GID holding an IPv4 address (left in {@code entry}), or -1.
     * RoCE v2 routes over UDP/IP, so this is the GID rdma_cm and perftest pick for IPv4 peers.
     */
    static int roceV2Ipv4Gid(MemorySegment context, int port, int tableLength, MemorySegment entry) {
        for (int i = 0; i < tableLength; i++) {
            if (InlineVerbs.ibv_query_gid_ex(context, port, i, entry, 0) != 0) {
                continue;   // unused entries answer ENODATA
            }
            if (ibv_gid_entry.gid_type(entry) == IBV_GID_TYPE_ROCE_V2() && isIpv4Mapped(ibv_gid_entry.gid(entry))) {
                return i;
            }
        }
        return -1;
    }

    /** ::ffff:a.b.c.d — how RoCE stores an IPv4 address in a GID. */
    static boolean isIpv4Mapped(MemorySegment gid) {
        for (int i = 0; i < 10; i++) {
            if (gid.get(JAVA_BYTE, i) != 0) {
                return false;
            }
        }
        return gid.get(JAVA_BYTE, 10) == (byte) 0xff && gid.get(JAVA_BYTE, 11) == (byte) 0xff;
    }

    /** The IPv4 address of the test device's port 1 (from its RoCE v2 GID). */
    static Inet4Address ipv4Address(String deviceName) {
        try (RawRcLoopback rc = new RawRcLoopback(deviceName, m -> { })) {
            MemorySegment gid = ibv_gid_entry.gid(rc.gidEntry);
            return (Inet4Address) InetAddress.getByAddress(gid.asSlice(12, 4).toArray(JAVA_BYTE));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The test device ({@link TestDevice}), checked against what libibverbs lists. */
    static String testDevice() {
        String name = TestDevice.name();
        List<String> names = names();
        if (!names.contains(name)) {
            throw new AssertionError("the kernel lists " + name + " but libibverbs does not: " + names);
        }
        return name;
    }
}
