// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.testing.TwoNodes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** netem on this node's wire interface of the two-node testbed (its egress), for fault tests. */
final class WireFault {
    private WireFault() {}

    /** Drops {@code percent} % of what this node sends on the wire. */
    static void lossOnThisNode(int percent) throws Exception {
        tc("replace", "netem", "loss", percent + "%");
    }

    /** Removes any netem qdisc from this node's wire. */
    static void clearThisNode() throws Exception {
        tc("del");
    }

    private static void tc(String action, String... qdisc) throws Exception {
        List<String> c = new java.util.ArrayList<>(List.of("tc", "qdisc", action, "dev", TwoNodes.wireInterface(),
                "root"));
        c.addAll(List.of(qdisc));
        Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", c) + " failed: " + out);
        }
    }
}
