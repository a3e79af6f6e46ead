// SPDX-License-Identifier: Apache-2.0
package org.example.consumer;

import dev.jrdma.Rdma;
import dev.jrdma.RdmaDevice;

/** Lists the RDMA devices through jrdma, and says whether it ran as a module or on the class path. */
public final class ListDevices {
    private ListDevices() {}

    public static void main(String[] args) {
        Module m = ListDevices.class.getModule();
        System.out.println("running " + (m.isNamed() ? "as module " + m.getName() : "on the class path")
                + ", jrdma " + (Rdma.class.getModule().isNamed() ? "as module " + Rdma.class.getModule().getName()
                        : "on the class path"));
        for (RdmaDevice device : Rdma.devices()) {
            System.out.println("device " + device.name());
        }
    }
}
