// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.probe;

import dev.jrdma.Rdma;

/**
 * Started by NativeAccessTest in a JVM of its own: jrdma's first call, and what became of it.
 * Outside package dev.jrdma so that it can run on the class path next to dev.jrdma as a module.
 */
public final class NativeAccessProbe {
    private NativeAccessProbe() {}

    /**
     * Lists the devices, or prints why jrdma refused.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        try {
            System.out.println("devices: " + Rdma.devices().size());
        } catch (IllegalCallerException e) {
            System.out.println("refused: " + e.getMessage());
            System.exit(3);
        }
    }
}
