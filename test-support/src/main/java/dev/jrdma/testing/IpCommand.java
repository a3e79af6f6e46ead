// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Runs iproute2's {@code ip}, for device tests that change the network under a device (the
 * Soft-RoCE VM's tests take the netdev under rxe1 down and up to make port events).
 */
public final class IpCommand {
    private IpCommand() {}

    /**
     * Runs {@code ip ARGS...}, its output inherited, and fails the test unless it exits 0 within 10 s.
     *
     * @param args the arguments, e.g. {@code "link", "set", "v1", "down"}
     */
    public static void run(String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = "ip";
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "ip did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command));
    }
}
