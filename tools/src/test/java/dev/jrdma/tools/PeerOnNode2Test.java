// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.LocalAgent;
import dev.jrdma.testing.TestDevice;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two-node tests' peers as a program agent runs them, here on the host with an agent in this
 * JVM: RetryPeer's and WireIntegrity's entry points end with a clear error, never a hang, and
 * {@link PeerOnNode2} reports a peer's end and output to the test side.
 */
class PeerOnNode2Test {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @RegisterExtension
    static final LocalAgent AGENT = new LocalAgent();

    /** Sleeps for its argument's milliseconds. */
    static final class Slow {
        static int run(String... args) throws InterruptedException {
            System.out.println("slow: started");
            Thread.sleep(Long.parseLong(args[0]));
            System.out.println("slow: done");
            return 0;
        }
    }

    private static PeerOnNode2 peer(Class<?> program, String... args) {
        return new PeerOnNode2(program.getSimpleName(), () -> AGENT.client().run(TIMEOUT, program.getName(), List.of(args)));
    }

    @Test
    void badArgumentsEndThePeersWithExit2AndTheUsage() throws Exception {
        AgentClient.Result retry = peer(RetryPeer.class, "sink", "7711").await(TIMEOUT);
        assertEquals(2, retry.code(), retry.all());
        assertTrue(retry.err().contains("usage: RetryPeer idle PORT | RetryPeer sink PORT SESSIONS; got: sink 7711"),
                retry.all());
        AgentClient.Result integrity = peer(WireIntegrity.class, "send", "10.200.1.1", "x", "1", "2").await(TIMEOUT);
        assertEquals(2, integrity.code(), integrity.all());
        assertTrue(integrity.err().contains("usage: WireIntegrity receive PORT"), integrity.all());
        assertTrue(integrity.err().contains("not a number: For input string: \"x\""), integrity.all());
    }

    @Test
    @EnabledIf("noRdmaDevice")
    void withoutAnRdmaDeviceThePeersEndWithExit1NamingIt() throws Exception {
        AgentClient.Result retry = peer(RetryPeer.class, "sink", "0", "1").await(TIMEOUT);
        assertEquals(1, retry.code(), retry.all());
        assertTrue(retry.err().contains("java.lang.IllegalStateException: no RDMA device"), retry.all());
        AgentClient.Result integrity = peer(WireIntegrity.class, "send", "127.0.0.1", "1", "1", "1024")
                .await(TIMEOUT);
        assertEquals(1, integrity.code(), integrity.all());
        assertTrue(integrity.err().contains("no RDMA device found"), integrity.all());
    }

    static boolean noRdmaDevice() {
        return TestDevice.kernelDevices().isEmpty();
    }

    @Test
    void aPeerThatEndsBeforeListeningFailsTheConnectAtOnceWithItsOutput() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        PeerOnNode2 peer = peer(RetryPeer.class, "idle");
        AssertionError e = assertTimeoutPreemptively(TIMEOUT, () -> assertThrows(AssertionError.class,
                () -> peer.connect("127.0.0.1", port, Duration.ofSeconds(60))));
        assertTrue(e.getMessage().contains("RetryPeer ended before listening on port " + port), e.getMessage());
        assertTrue(e.getMessage().contains("exit 2") && e.getMessage().contains("usage: RetryPeer"), e.getMessage());
    }

    @Test
    void aFailureOfTheTestSideCarriesThePeersOutput() {
        PeerOnNode2 peer = peer(RetryPeer.class, "idle");
        AssertionError e = assertThrows(AssertionError.class, () -> peer.alongside(TIMEOUT, () -> {
            throw new AssertionError("the test side failed");
        }));
        assertEquals("the test side failed", e.getMessage());
        assertEquals(1, e.getSuppressed().length, () -> List.of(e.getSuppressed()).toString());
        assertTrue(e.getSuppressed()[0].getMessage().contains("usage: RetryPeer"), e.getSuppressed()[0].getMessage());
    }

    @Test
    void aPeerOverTheTestsBoundFailsTheWaitAndStillRuns() throws Exception {
        PeerOnNode2 peer = peer(Slow.class, "3000");
        AssertionError e = assertThrows(AssertionError.class, () -> peer.await(Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("Slow did not end within 1 s"), e.getMessage());
        AgentClient.Result r = peer.await(TIMEOUT);
        assertEquals(0, r.code(), r.all());
        assertTrue(r.out().contains("slow: done"), r.all());
    }
}
