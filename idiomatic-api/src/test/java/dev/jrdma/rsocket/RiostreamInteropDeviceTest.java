// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.TestDevices;
import dev.jrdma.rsocket.RsocketTools.Where;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.Exercises;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's iomap/iowrite against rdma-core's {@code riostream} (rdmacm-utils), both directions on
 * the test device, every byte checked on both sides ({@link RsocketTools}).
 */
@DeviceTest
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RiostreamInteropDeviceTest {
    private static final int ITERATIONS = 20;

    @Test
    @Exercises({"riomap", "riowrite", "riounmap"})
    void jrdmaIowritesAgainstRiostreamServer() throws Exception {
        RsocketTools.riostreamServer(Where.THIS_NODE, TestDevices.ipv4Address(), ITERATIONS, TestDevices.TIMEOUT);
    }

    @Test
    @Exercises({"riomap", "riowrite", "riounmap"})
    void riostreamClientAgainstJrdmaServer() throws Exception {
        RsocketTools.riostreamClient(Where.THIS_NODE, TestDevices.ipv4Address(), ITERATIONS, TestDevices.TIMEOUT);
    }
}
