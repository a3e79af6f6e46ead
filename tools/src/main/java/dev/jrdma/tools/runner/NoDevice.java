// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

/**
 * What the commands say when libibverbs lists no RDMA device: how to get one. A first user
 * often has no RDMA hardware at all, and "no devices" alone leaves them where they were;
 * Rdma.openDefault() gives the API user the same hint.
 */
public final class NoDevice {
    /** The one line (after the command's name) for stderr. */
    public static final String MESSAGE = "no RDMA devices found (without RDMA hardware, Soft-RoCE makes one: as root, "
            + "modprobe rdma_rxe ib_uverbs, then rdma link add rxe0 type rxe netdev <interface>; see \"No RDMA device\" "
            + "in jrdma's docs/guide/troubleshooting.md)";

    private NoDevice() {
    }
}
