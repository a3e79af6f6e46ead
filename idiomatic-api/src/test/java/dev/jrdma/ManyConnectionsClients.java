// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;

/**
 * The client side of {@link ManyConnections} as a program, for node 2 of the two-node testbed
 * (run there by the program agent, see {@code TwoNodeManyConnectionsDeviceTest}): the echo
 * clients, the vanishing one and the rejected one, on virtual threads sharing one event channel.
 * Arguments: server address, port, echo clients, rounds, message bytes, timeout in seconds.
 * Prints the clients' report; exit code 0 only when every echo client verified every byte of
 * every round trip and disconnected, the rejected client saw REJECTED and nothing stalled.
 */
final class ManyConnectionsClients {
    private ManyConnectionsClients() {}

    static int run(String... args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: ManyConnectionsClients ADDRESS PORT CLIENTS ROUNDS BYTES TIMEOUT_S");
            return 2;
        }
        Inet4Address server = (Inet4Address) InetAddress.getByName(args[0]);
        int connections = Integer.parseInt(args[2]);
        ManyConnections.Settings settings = new ManyConnections.Settings(connections, Integer.parseInt(args[3]),
                Integer.parseInt(args[4]), Duration.ofSeconds(Long.parseLong(args[5])), true,
                WaitStrategy.threadAware());
        ManyConnections.Report report = ManyConnections.run(server, Integer.parseInt(args[1]), settings,
                ManyConnections.Side.CLIENTS, () -> { });
        System.out.println("clients: " + report);
        boolean passed = !report.stalled() && report.clientFailures().isEmpty()
                && report.clientsPassed() == connections && report.rejected();
        return passed ? 0 : 1;
    }
}
