// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.TIMEOUT_S;
import static dev.jrdma.tools.JrdmaRuns.awaitListening;
import static dev.jrdma.tools.JrdmaRuns.freePort;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static dev.jrdma.tools.JrdmaRuns.serverAndClient;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.Context;
import dev.jrdma.LinkLayer;
import dev.jrdma.Rdma;
import dev.jrdma.testing.DeviceTest;
import dev.jrdma.tools.JrdmaRuns.Pair;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * -X/--vector, --dlid and -z on a Soft-RoCE device: a test whose CQs use the device's last
 * completion vector runs with events; a vector the device lacks fails both sides naming device,
 * value and range; --dlid is refused after asking the port's link layer; -z without -R
 * exchanges over rdma_cm and connects by verbs, with jrdma and with perftest 6.06.
 */
@DeviceTest
class VectorAndDlidDeviceTest {
    /** Both sides of {@code test} with {@code options}: their results, client first. */
    private static Result[] pair(String test, List<String> options) throws Exception {
        int port = freePort();
        List<String> common = new ArrayList<>(List.of(test, "-d", DEVICE, "-p", Integer.toString(port), "--warm-up",
                "0", "-n", "50", "--timeout", "30"));
        common.addAll(options);
        Pair both = serverAndClient(port, common);
        return new Result[] {both.client(), both.server()};
    }

    private static int vectors() {
        try (Context context = Rdma.open(DEVICE)) {
            return context.completionVectors();
        }
    }

    @Test
    void theCompletionQueuesUseTheVectorGiven() throws Exception {
        int last = vectors() - 1;
        for (String test : List.of("send-lat", "read-bw")) {
            Result[] r = pair(test, List.of("-e", "-X", Integer.toString(last)));
            for (Result side : r) {
                assertEquals(0, side.code(), test + ": " + r[0].all() + "\nserver: " + r[1].all());
                assertTrue(side.out().contains(" Test with events. Using " + DEVICE + "_comp" + last + "\n"), side.out());
            }
            assertTrue(r[0].out().lines().anyMatch(l -> l.matches("\\s*\\d+\\s+50\\s+.*")), r[0].out());
        }
    }

    @Test
    void aVectorTheDeviceLacksFailsBothSidesNamingDeviceValueAndRange() throws Exception {
        int vectors = vectors();
        Result[] r = pair("send-bw", List.of("-e", "-X", Integer.toString(vectors)));
        assertEquals(1, r[0].code(), r[0].all());
        assertEquals(1, r[1].code(), r[1].all());
        String expected = "completion vector " + vectors + " is out of range for " + DEVICE + ": it has " + vectors;
        assertTrue(r[0].err().contains(expected) || r[1].err().contains(expected),
                "client: " + r[0].all() + "\nserver: " + r[1].all());
    }

    /**
     * -z alone: the out-of-band messages go over an rdma_cm connection (so the client needs the
     * server's IP address, not a TCP listener), the test QPs are connected by verbs.
     */
    @Test
    void commRdmaCmExchangesOverRdmaCmAndConnectsByVerbs() throws Exception {
        for (String test : List.of("send-lat", "write-bw")) {
            int port = freePort();
            List<String> common = List.of(test, "-d", DEVICE, "-p", Integer.toString(port), "--warm-up", "0", "-n",
                    "50", "--timeout", "30", "-z");
            Pair both = serverAndClient(port, true, common, List.of(), List.of());
            Result c = both.client();
            Result s = both.server();
            for (Result side : List.of(c, s)) {
                assertEquals(0, side.code(), test + " client: " + c.all() + "\nserver: " + s.all());
                assertTrue(side.out().contains(" rdma_cm QPs\t : OFF\n Data ex. method : rdma_cm\n"), side.out());
                assertTrue(side.out().contains(" remote address: LID"), side.out());
            }
            assertTrue(c.out().lines().anyMatch(l -> l.matches("\\s*\\d+\\s+50\\s+.*")), c.out());
        }
    }

    /** -z against perftest 6.06's ib_send_lat -z, as the server and as the client, in this VM. */
    @Test
    void commRdmaCmInteroperatesWithPerftest() throws Exception {
        int port = freePort();
        CompletableFuture<String> perftest = CompletableFuture.supplyAsync(() -> {
            try {
                return JrdmaRuns.exec("timeout", "55", "ib_send_lat", "-d", DEVICE, "-p", Integer.toString(port), "-n",
                        "50", "-z");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        awaitListening(port, null, true);
        Result c = jrdma("send-lat", "-d", DEVICE, "-p", Integer.toString(port), "--warm-up", "0", "-n", "50",
                "--timeout", "30", "-z", ADDRESS);
        String p = perftest.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(0, c.code(), c.all() + "\nperftest:\n" + p);
        assertTrue(c.out().lines().anyMatch(l -> l.matches("\\s*2\\s+50\\s+.*")), c.out());
        assertTrue(p.contains(" Data ex. method : rdma_cm"), p);
        assertTrue(p.lines().anyMatch(l -> l.matches("\\s*2\\s+50\\s+.*")), p);

        // And the other way round: perftest's client, jrdma's server.
        int port2 = freePort();
        CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> jrdma("send-lat", "-d", DEVICE, "-p",
                Integer.toString(port2), "--warm-up", "0", "-n", "50", "--timeout", "30", "-z"));
        awaitListening(port2, server, true);
        String client = JrdmaRuns.exec("timeout", "55", "ib_send_lat", "-d", DEVICE, "-p", Integer.toString(port2),
                "-n", "50", "-z", ADDRESS);
        Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(0, s.code(), s.all() + "\nperftest:\n" + client);
        assertTrue(client.lines().anyMatch(l -> l.matches("\\s*2\\s+50\\s+.*")), client);
        assertTrue(s.out().lines().anyMatch(l -> l.matches("\\s*2\\s+50\\s+.*")), s.out());
    }

    @Test
    void aDestinationLidIsRefusedOnARoCEPort() {
        LinkLayer link;
        try (Context context = Rdma.open(DEVICE)) {
            link = context.queryPort(1).linkLayer();
        }
        assertEquals(LinkLayer.ETHERNET, link, "Soft-RoCE's port is an Ethernet one");
        for (String test : List.of("send-lat", "write-bw")) {
            Result r = jrdma(test, "-d", DEVICE, "-i", "1", "--dlid", "0x12", "--warm-up", "0", ADDRESS);
            assertEquals(2, r.code(), r.all());
            assertEquals(1, r.err().strip().lines().count(), r.all());
            assertTrue(r.err().contains("option '--dlid': " + DEVICE + " port 1 has link layer ETHERNET: it routes by "
                    + "GID and has no LIDs (--dlid is InfiniBand's)"), r.all());
        }
    }
}
