// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.jrdma.bindings.generated.ibv_device;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.ErrnoVerbs;
import dev.jrdma.internal.NativeAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;

/** Entry point: the RDMA devices of this host. Thread-safe. */
public final class Rdma {
    private Rdma() {}

    /**
     * The devices libibverbs finds. An empty list, not an exception, when there are none,
     * including when {@code ibv_get_device_list} returns NULL because the kernel has no uverbs
     * support or no provider library is installed.
     *
     * @return the devices, in libibverbs' order
     * @throws IllegalCallerException when the JVM runs without native access for jrdma; the
     *         message names the {@code --enable-native-access} flag to add
     */
    @Reaches({"ibv_get_device_list", "ibv_free_device_list", "ibv_get_device_name", "ibv_get_device_guid"})
    public static List<RdmaDevice> devices() {
        return withDeviceList(list -> {
            List<RdmaDevice> devices = new ArrayList<>(list.size());
            for (MemorySegment device : list) {
                devices.add(describe(device));
            }
            return List.copyOf(devices);
        });
    }

    /**
     * {@return the device called {@code name}, if there is one}
     *
     * @param name the device name, e.g. {@code rxe0}
     */
    @Reaches({"ibv_get_device_list", "ibv_free_device_list", "ibv_get_device_name"})
    public static Optional<RdmaDevice> device(String name) {
        return devices().stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /**
     * {@return the device called {@code name}, opened}
     *
     * @param name the device name, e.g. {@code rxe0}
     * @throws IllegalArgumentException when there is no such device (the message lists the devices)
     */
    @Reaches("ibv_open_device")
    public static Context open(String name) {
        List<RdmaDevice> devices = devices();
        return devices.stream().filter(d -> d.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no RDMA device '" + name + "'; the devices are "
                        + devices.stream().map(RdmaDevice::name).toList()))
                .open();
    }

    /**
     * {@return the first device libibverbs lists, opened: what a program without a device option uses}
     *
     * @throws IllegalStateException when there is no RDMA device
     */
    @Reaches("ibv_open_device")
    public static Context openDefault() {
        return devices().stream().findFirst().orElseThrow(() -> new IllegalStateException(
                "no RDMA device (on a machine without RDMA hardware, Soft-RoCE: rdma link add rxe0 type rxe"
                        + " netdev eth0)")).open();
    }

    /**
     * Makes registered memory safe across {@code fork()} ({@code ibv_fork_init}): call it
     * before registering memory in a program that starts processes, on kernels older than
     * 5.13 (see {@link ForkProtection}). Idempotent; also what setting the environment variable
     * {@code RDMAV_FORK_SAFE} does.
     *
     * @return the protection now in force: {@link ForkProtection#ENABLED}, or
     *         {@link ForkProtection#UNNEEDED} when the kernel protects pinned pages itself
     * @throws RdmaException when libibverbs cannot enable it (EINVAL once memory is registered
     *                       without it, on a kernel that needs it)
     */
    @Reaches("ibv_fork_init")
    public static ForkProtection initializeForkProtection() {
        NativeAccess.require();
        RdmaException.check(Verb.IBV_FORK_INIT, "libibverbs", rdma_h.ibv_fork_init());
        return forkProtection();
    }

    /** {@return whether registered memory survives a fork of this process now ({@code ibv_is_fork_initialized})} */
    @Reaches("ibv_is_fork_initialized")
    public static ForkProtection forkProtection() {
        NativeAccess.require();
        return ForkProtection.of(rdma_h.ibv_is_fork_initialized());
    }

    /** The kernel's index of the device called {@code name}; empty if the kernel does not report one. */
    static OptionalInt deviceIndex(String name) {
        return withDeviceList(list -> {
            for (MemorySegment d : list) {
                if (deviceName(d).equals(name)) {
                    int index = rdma_h.ibv_get_device_index(d);
                    return index < 0 ? OptionalInt.empty() : OptionalInt.of(index);
                }
            }
            throw new IllegalStateException("device " + name + " is no longer present");
        });
    }

    /** {@code ibv_open_device} of {@code device}, found again in the device list by name; for {@link RdmaDevice#open()}. */
    static MemorySegment openDevice(RdmaDevice device) {
        return withDeviceList(list -> {
            for (MemorySegment d : list) {
                if (deviceName(d).equals(device.name())) {
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment errno = Errno.allocate(arena);
                        // The context stays valid after the device list is freed (ibv_open_device(3)).
                        MemorySegment context = ErrnoVerbs.ibv_open_device(errno, d);
                        if (context.address() == 0) {
                            throw RdmaException.of(Verb.IBV_OPEN_DEVICE, "device " + device.name(), Errno.get(errno));
                        }
                        return context;
                    }
                }
            }
            throw new IllegalStateException("device " + device.name() + " is no longer present; devices: "
                    + list.stream().map(Rdma::deviceName).toList());
        });
    }

    static RdmaDevice describe(MemorySegment device) {
        MemorySegment d = device.reinterpret(ibv_device.layout().byteSize());
        String name = deviceName(device);
        // ibv_get_device_guid returns a __be64: the bytes are in wire order, so a native
        // (little-endian) load has to be swapped to read the GUID as the number it denotes.
        long guid = Long.reverseBytes(rdma_h.ibv_get_device_guid(device));
        return new RdmaDevice(name, guid, NodeType.of(ibv_device.node_type(d)),
                TransportType.of(ibv_device.transport_type(d)));
    }

    /** Runs {@code action} on the NULL-safe device list; the list is freed afterwards. */
    static <T> T withDeviceList(Function<List<MemorySegment>, T> action) {
        NativeAccess.require();   // devices() and RdmaDevice.open() start here
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment list = ErrnoVerbs.ibv_get_device_list(errno, count);
            if (list.address() == 0) {
                return action.apply(List.of());   // and ibv_free_device_list(NULL) would crash
            }
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment array = list.reinterpret(ADDRESS.byteSize() * n);
                List<MemorySegment> devices = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    devices.add(array.getAtIndex(ADDRESS, i));
                }
                return action.apply(devices);
            } finally {
                rdma_h.ibv_free_device_list(list);
            }
        }
    }

    static String deviceName(MemorySegment device) {
        return rdma_h.ibv_get_device_name(device).reinterpret(Integer.MAX_VALUE).getString(0);
    }
}
