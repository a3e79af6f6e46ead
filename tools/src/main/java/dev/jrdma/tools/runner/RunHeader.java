// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.Access;
import dev.jrdma.TransportType;
import java.util.Set;

/**
 * Header lines whose value jrdma decides itself, computed from what the run does rather than
 * copied from perftest's output: the header is read as a record of the run.
 */
final class RunHeader {
    private RunHeader() {
    }

    /**
     * "PCIe relax order": ON only when the test buffer is registered with relaxed ordering
     * (IBV_ACCESS_RELAXED_ORDERING). perftest asks for it unless --disable_pcie_relaxed and prints
     * ON; jrdma never asks, so the line says OFF with or without the option.
     */
    static String relaxOrder(Set<Access> bufferAccess) {
        return bufferAccess.contains(Access.RELAXED_ORDERING) ? "ON" : "OFF";
    }

    /** "Transport type": IW on an iWARP device, IB on InfiniBand and RoCE ones, as perftest prints it. */
    static String transport(TransportType t) {
        return t == TransportType.IWARP ? "IW" : "IB";
    }
}
