// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static dev.jrdma.tools.JrdmaRuns.quickRun;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.tools.JrdmaRuns.Pair;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The last of issue #36's options on a Soft-RoCE device: --data_validation_debug's per-QP lines
 * where write-bw's bytes land, perftest 6.06's --source_ip as the address the server listens on
 * and the client leaves from, and --disable_numa with --numa_node.
 */
@DeviceTest
class PendingOptionsDeviceTest {
    private static Result[] pair(String test, List<String> server, List<String> client) throws Exception {
        Pair p = quickRun(test, server, client);
        Result[] both = {p.server(), p.client()};
        assertEquals(0, both[0].code(), "server: " + both[0].all() + "\nclient: " + both[1].all());
        assertEquals(0, both[1].code(), "client: " + both[1].all() + "\nserver: " + both[0].all());
        return both;
    }

    /** The write-bw server checks both QPs' landing bytes and says so per QP on stderr; the client checks nothing. */
    @Test
    void dataValidationDebugDescribesEachQpsCheck() throws Exception {
        List<String> opts = List.of("-n", "40", "-s", "8192", "-q", "2", "--data_validation",
                "--data_validation_debug");
        Result[] r = pair("write-bw", opts, opts);
        assertTrue(r[0].out().contains(" Data validation: PASSED (16384 bytes of 2 QPs)"), r[0].out());
        for (int q = 0; q < 2; q++) {
            assertTrue(r[0].err().matches("(?s).*\\[validation\\] QP " + q + ": bytes \\[\\d+, \\d+\\) of the buffer, "
                    + "pattern [^\\n]*: 8192 bytes checked, all as expected\\n.*"), r[0].err());
        }
        assertFalse(r[1].err().contains("[validation]"), "the client's bytes land at the server: " + r[1].err());
    }

    /** perftest 6.06's --source_ip: the server listens on it, the client's connection leaves from it. */
    @Test
    void sourceIpIsBindSourceIp() throws Exception {
        Result[] r = pair("send-lat", List.of("-n", "20", "--source_ip", ADDRESS),
                List.of("-n", "20", "--source_ip", ADDRESS));
        assertTrue(r[1].out().matches("(?s).*\\n\\s*2\\s+20\\s.*"), "a 2-byte row of 20: " + r[1].out());
    }

    /** --disable_numa turns --numa_node's binding off (the node is still checked); the run is unchanged. */
    @Test
    void disableNumaWithNumaNodeRuns() throws Exception {
        List<String> opts = List.of("-n", "20", "--numa_node", "0", "--disable_numa");
        Result[] r = pair("send-lat", opts, opts);
        assertTrue(r[1].out().matches("(?s).*\\n\\s*2\\s+20\\s.*"), "a 2-byte row of 20: " + r[1].out());
    }
}
