// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * An RDMA device as listed by {@link Rdma#devices()}: a plain value, valid after the list it
 * came from is gone. {@link #open()} looks the device up again by name.
 *
 * @param name          the device name, e.g. {@code rxe0} or {@code mlx5_0}
 * @param nodeGuid      the node GUID as a number (its big-endian wire form read as one long)
 * @param nodeType      the node type
 * @param transportType the transport type
 */
public record RdmaDevice(String name, @Reaches("ibv_get_device_guid") long nodeGuid, NodeType nodeType,
                         TransportType transportType) {
    /**
     * {@return the kernel's index of this device ({@code ibv_get_device_index}), as
     * {@code rdma dev} and netlink name devices; stable while the device exists} Empty on
     * kernels too old to report it.
     *
     * @throws IllegalStateException when the device is gone
     */
    @Reaches("ibv_get_device_index")
    public java.util.OptionalInt index() {
        return Rdma.deviceIndex(name);
    }

    /** {@return the opened device: a {@link Context} the caller must close} */
    @Reaches("ibv_open_device")
    public Context open() {
        return Context.open(this);
    }

    /** {@return the node GUID the way {@code ibv_devices} prints it: 16 hex digits} */
    public String nodeGuidText() {
        return String.format("%016x", nodeGuid);
    }
}
