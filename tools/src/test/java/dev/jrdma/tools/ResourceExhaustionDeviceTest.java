// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.testing.TestDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A buffer too large for the machine is a bad value like any other: one line naming the size,
 * exit 1, not an OutOfMemoryError's stack trace (which is what a 16 GiB write-bw server gave).
 */
@DeviceTest
class ResourceExhaustionDeviceTest {
    private static final String DEVICE = TestDevice.name();
    private static final String ADDRESS = System.getenv().getOrDefault("JRDMA_TEST_ADDRESS", "10.200.0.1");

    @Test
    void aBufferLargerThanMemoryIsOneLineNamingTheSizeOnBothSides() throws Exception {
        // 2047 MiB messages on 4 QPs: each side registers 2 x 4 x 2047 MiB = 16 GiB once the
        // peers have met, more than the Soft-RoCE VM (or most hosts) can give.
        String[] test = {"write-bw", "-d", DEVICE, "-s", "2047M", "-q", "4", "-p", "18529", "--timeout", "60"};
        CompletableFuture<JrdmaRuns.Result> server =
                CompletableFuture.supplyAsync(() -> JrdmaRuns.jrdma(test));
        List<String> clientArgs = new ArrayList<>(List.of(test));
        clientArgs.add(ADDRESS);
        JrdmaRuns.Result client = JrdmaRuns.jrdma(clientArgs.toArray(String[]::new));
        JrdmaRuns.Result served = server.get(120, TimeUnit.SECONDS);
        for (JrdmaRuns.Result r : List.of(served, client)) {
            assertEquals(1, r.code(), r.all());
            // The warm-up's note (the JIT still compiling under TCG, a separate line that depends on
            // the emulator's speed) is not part of the error: the error itself is one line.
            String[] lines = r.err().strip().lines().filter(l -> !l.startsWith("jrdma write-bw: warm-up: "))
                    .toArray(String[]::new);
            assertEquals(1, lines.length, r.all());
            assertTrue(lines[0].startsWith("jrdma write-bw: "), r.all());
            assertTrue(!r.err().contains("OutOfMemoryError") && !r.err().contains("\tat "), r.all());
        }
        assertTrue(served.err().contains(" bytes"), served.all());
    }
}
