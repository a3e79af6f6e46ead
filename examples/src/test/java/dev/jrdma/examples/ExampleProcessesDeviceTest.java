// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static dev.jrdma.examples.ExamplesDeviceTest.TIMEOUT;
import static dev.jrdma.examples.ExamplesDeviceTest.args;
import static dev.jrdma.examples.ExamplesDeviceTest.assertLine;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jrdma.testing.DeviceTest;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * main() as a user runs it: HelloServer and HelloClient as separate {@code java} processes,
 * checked by exit code and output. (One pair only: under the VM's CPU emulation each JVM takes
 * ~25 s to start; {@link ExamplesDeviceTest} runs every example in this JVM.)
 */
@DeviceTest
class ExampleProcessesDeviceTest {
    @BeforeAll
    static void findTheDevice() {
        ExamplesDeviceTest.findTheDevice();
    }

    @Test
    void helloServerAndClientProcesses() throws Exception {
        String port = ExamplesDeviceTest.freePort();
        try (ExampleProcess server = ExampleProcess.start("HelloServer", List.of(args("--port", port)))) {
            server.awaitLine("server: listening", TIMEOUT);
            try (ExampleProcess client = ExampleProcess.start("HelloClient",
                    List.of(args(ExamplesDeviceTest.host, "--port", port)))) {
                assertEquals(0, client.exitCode(TIMEOUT), client::output);
                assertLine(client.output(), "client: received \"ack: Hello, RDMA!\"");
            }
            assertEquals(0, server.exitCode(TIMEOUT), server::output);
            assertLine(server.output(), "server: received \"Hello, RDMA!\"");
        }
    }
}
