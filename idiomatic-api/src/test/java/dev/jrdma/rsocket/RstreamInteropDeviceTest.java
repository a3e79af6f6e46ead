// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.rsocket;

import dev.jrdma.TestDevices;
import dev.jrdma.rsocket.RsocketTools.Where;
import dev.jrdma.testing.DeviceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * jrdma's rsocket channels against rdma-core's own rsocket tool, {@code rstream} (rdmacm-utils),
 * both on the test device, every byte checked on both sides ({@link RsocketTools}).
 */
@DeviceTest
// A hang fails the one test, with JUnit's thread dump, and the run goes on.
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RstreamInteropDeviceTest {
    private static final int ITERATIONS = 50;

    @Test
    void jrdmaClientAgainstRstreamServer() throws Exception {
        RsocketTools.rstreamServer(Where.THIS_NODE, TestDevices.ipv4Address(), ITERATIONS, TestDevices.TIMEOUT);
    }

    @Test
    void rstreamClientAgainstJrdmaServer() throws Exception {
        RsocketTools.rstreamClient(Where.THIS_NODE, TestDevices.ipv4Address(), ITERATIONS, TestDevices.TIMEOUT);
    }
}
