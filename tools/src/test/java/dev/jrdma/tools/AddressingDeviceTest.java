// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.JrdmaRuns.ADDRESS;
import static dev.jrdma.tools.JrdmaRuns.DEVICE;
import static dev.jrdma.tools.JrdmaRuns.TIMEOUT_S;
import static dev.jrdma.tools.JrdmaRuns.awaitListening;
import static dev.jrdma.tools.JrdmaRuns.freePort;
import static dev.jrdma.tools.JrdmaRuns.jrdma;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.DeviceTest;
import dev.jrdma.tools.JrdmaRuns.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The addressing, QoS, multicast and port options on a Soft-RoCE device, jrdma with jrdma:
 * multicast sends arrive at the QP attached to the group, the QoS options run (that the QP's
 * route carries them is ServiceLevelDeviceTest's, in the API), and what the device lacks is
 * refused by asking it.
 */
@DeviceTest
class AddressingDeviceTest {
    /** Both sides of {@code test} with {@code options}; the client connects to the server's address. */
    private static Result[] pair(String test, List<String> options) throws Exception {
        return pair(test, options, ADDRESS);
    }

    /** {@link #pair(String, List)} with the client connecting to {@code host}. */
    private static Result[] pair(String test, List<String> options, String host) throws Exception {
        int port = freePort();
        List<String> common = new ArrayList<>(List.of(test, "-d", DEVICE, "-p", Integer.toString(port), "--warm-up",
                "0", "-n", "100"));
        common.addAll(options);
        CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> jrdma(common.toArray(String[]::new)));
        awaitListening(port, server, options.contains("-R"));
        List<String> client = new ArrayList<>(common);
        client.add(host);
        Result c = jrdma(client.toArray(String[]::new));
        Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(0, c.code(), test + " " + options + " client: " + c.all() + "\nserver: " + s.all());
        assertEquals(0, s.code(), test + " " + options + " server: " + s.all());
        return new Result[] {c, s};
    }

    /**
     * -g: the receiving side's QP joins perftest's default group (send-lat: each side its own)
     * and announces the group's GID; the sender's datagrams to it (QPN 0xFFFFFF) all arrive, or
     * the receiving side would wait for the missing ones until its timeout.
     */
    @Test
    void multicastSendsArriveAtTheQueuePairAttachedToTheGroup() throws Exception {
        Result[] bw = pair("send-bw", List.of("-g", "-s", "512", "--timeout", "30"));
        assertTrue(bw[1].out().contains("GID: 255:01:00:00:00:02:201:133:00:00:00:00:00:00:00:00"), bw[1].out());
        assertTrue(bw[0].out().contains("Send BW Multicast Test\n MultiCast runs on UD!\n"), bw[0].out());
        assertTrue(bw[0].out().lines().anyMatch(l -> l.matches("\\s*512\\s+100\\s+.*")), bw[0].out());
        Result[] lat = pair("send-lat", List.of("--mcg", "-s", "64", "--timeout", "30"));
        assertTrue(lat[0].out().contains("GID: 255:01:00:00:00:02:201:133:00:00:00:00:00:00:00:01"), lat[0].out());
        assertTrue(lat[0].out().lines().anyMatch(l -> l.matches("\\s*64\\s+100\\s+.*")), lat[0].out());
        // From an IPv4 GID: an IPv4 group (its IPv4-mapped GID).
        Result[] v4 = pair("send-bw", List.of("-x", "1", "-g", "-M", "239.1.2.3", "-s", "512", "--timeout", "30"));
        assertTrue(v4[1].out().contains("GID: 00:00:00:00:00:00:00:00:00:00:255:255:239:01:02:03"), v4[1].out());
        // One -M group for both sides: each sends to the peer's QPN (with 0xFFFFFF it would receive its own).
        Result[] same = pair("send-lat", List.of("-g", "-M", "ff0e::7:1", "-s", "64", "--timeout", "30"));
        assertTrue(same[1].out().contains("GID: 255:14:00:00:00:00:00:00:00:00:00:00:00:07:00:01"), same[1].out());
    }

    /** --tclass and --flow_label on connected QPs and UD address handles, -T on an rdma_cm QP. */
    @Test
    void qosOptionsRun() throws Exception {
        pair("write-bw", List.of("-x", "1", "--tclass", "40", "--flow_label", "5,6", "-q", "2", "--pkey_index", "0"));
        pair("send-bw", List.of("-x", "1", "-c", "UD", "-s", "256", "--tclass", "72",
                "--flow_label", "9"));
        pair("send-lat", List.of("-R", "-T", "32"));
    }

    /**
     * --ipv6 picks an IPv6 RoCE GID (rxe's link-local one, fe80::/64) where the default is the
     * IPv4-mapped one; --ipv6-addr makes the out-of-band connection an IPv6 one (here to ::1) and
     * refuses a host without an IPv6 address; --bind_source_ip is where the server listens and
     * the client's connection leaves from.
     */
    @Test
    void ipv6GidsIpv6ExchangeAndSourceAddress() throws Exception {
        Result[] v6 = pair("send-lat", List.of("--ipv6", "--ipv6-addr"), "::1");
        assertTrue(v6[0].out().contains("GID: 254:128:00:00:00:00:00:00:"), v6[0].out());
        assertTrue(v6[1].out().contains("GID: 254:128:00:00:00:00:00:00:"), v6[1].out());
        Result[] v4 = pair("send-lat", List.of());
        assertTrue(v4[0].out().contains("GID: 00:00:00:00:00:00:00:00:00:00:255:255:"), v4[0].out());
        pair("write-lat", List.of("-x", "1", "--bind_source_ip", ADDRESS));
        Result noV6 = jrdma("send-lat", "-d", DEVICE, "-x", "1", "--warm-up", "0", "--ipv6-addr", "127.0.0.1");
        assertEquals(1, noV6.code(), noV6.all());
        assertTrue(noV6.err().contains("--ipv6-addr: host '127.0.0.1' has no IPv6 address"), noV6.err());
    }

    /** --dont_xchg_versions on both sides: no version is exchanged, so the peer's is unknown. */
    @Test
    void withoutTheVersionExchangeThePeersVersionIsUnknown() throws Exception {
        Result[] r = pair("send-lat", List.of("-x", "1", "--dont_xchg_versions", "--json"));
        assertTrue(r[0].out().matches("(?s).*\"peer_version\"\\s*:\\s*\"\".*"), r[0].out());
        Result[] with = pair("send-lat", List.of("-x", "1", "--json"));
        assertTrue(with[0].out().matches("(?s).*\"peer_version\"\\s*:\\s*\"6\\.06\".*"), with[0].out());
    }

    /**
     * Why --dont_xchg_versions has no interop case: perftest (here 6.06) skips the exchange too,
     * then checks the version it did not receive against 5.70 and exits; the jrdma server sees
     * the connection end.
     */
    @Test
    void perftestWithoutTheVersionExchangeRefusesItsOwnEmptyPeerVersion() throws Exception {
        int port = freePort();
        CompletableFuture<Result> server = CompletableFuture.supplyAsync(() -> jrdma("send-lat", "-d", DEVICE, "-x",
                "1", "-p", Integer.toString(port), "--warm-up", "0", "--timeout", "20", "--dont_xchg_versions"));
        awaitListening(port, server);
        String perftest = JrdmaRuns.exec("timeout", "50", "ib_send_lat", "-d", DEVICE, "-x", "1", "-p",
                Integer.toString(port), "--dont_xchg_versions", ADDRESS);
        assertTrue(perftest.contains("not compatible with versions older than 5.70"), perftest);
        Result s = server.get(TIMEOUT_S, TimeUnit.SECONDS);
        assertEquals(1, s.code(), s.all());
    }

    /** What rxe lacks is refused from its answers: a second port, P_Key entry 1, an InfiniBand link. */
    @Test
    void whatTheDeviceLacksIsRefusedByAskingIt() {
        Result dual = jrdma("write-bw", "-d", DEVICE, "-O", "--warm-up", "0");
        assertEquals(2, dual.code(), dual.all());
        assertEquals(1, dual.err().strip().lines().count(), dual.err());
        assertTrue(dual.err().contains("option '--dualport' (-O): " + DEVICE
                + " has 1 port; dual-port mode runs on ports 1 and 2"), dual.err());
        Result pkey = jrdma("send-lat", "-d", DEVICE, "--pkey_index", "1", "--warm-up", "0");
        assertEquals(1, pkey.code(), pkey.all());
        assertTrue(pkey.err().contains("--pkey_index 1: " + DEVICE + " port 1 has no P_Key table entry 1"), pkey.err());
        Result link = jrdma("send-lat", "-d", DEVICE, "--force-link", "IB", "--warm-up", "0");
        assertEquals(1, link.code(), link.all());
        assertTrue(link.err().contains("--force-link IB: " + DEVICE + " port 1 is Ethernet (RoCE)"), link.err());
    }
}
