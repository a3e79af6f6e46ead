// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rsockets example ({@link RsocketEcho}, the tutorial docs/guide/rsockets.md) end to end in
 * this JVM: the server with a virtual thread per connection, four clients' connections at once.
 */
@DeviceTest
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RsocketEchoDeviceTest {
    @BeforeAll
    static void findTheDevice() {
        ExamplesDeviceTest.findTheDevice();
    }

    @Test
    void echoesFourConnectionsOnVirtualThreads() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        try (InJvm jvm = new InJvm()) {
            Future<Integer> server = jvm.start(RsocketEcho::run,
                    ExamplesDeviceTest.args("--port", port, "--connections", "4"));
            jvm.awaitLine("server: listening", ExamplesDeviceTest.TIMEOUT);
            Future<Integer> client = jvm.start(RsocketEcho::run, ExamplesDeviceTest.args(ExamplesDeviceTest.host,
                    "--port", port, "--connections", "4", "--rounds", "5", "--size", "10000"));
            assertEquals(0, jvm.exitCode(client, ExamplesDeviceTest.TIMEOUT), jvm::output);
            assertEquals(0, jvm.exitCode(server, ExamplesDeviceTest.TIMEOUT), jvm::output);
            ExamplesDeviceTest.assertLine(jvm.output(), "server: served 4 connections, 200000 bytes echoed");
            assertTrue(jvm.output().lines().anyMatch(line -> line.startsWith(
                    "client: 4 connections, 20 round trips of 10000 bytes verified in ")), jvm::output);
        }
    }
}
