// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.ConnectionOptions;
import dev.jrdma.Context;
import dev.jrdma.Endpoint;
import dev.jrdma.EndpointExchange;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairState;
import dev.jrdma.QueuePairType;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionException;
import dev.jrdma.WorkCompletionStatus;
import dev.jrdma.testing.AgentClient;
import dev.jrdma.testing.TwoNodeTest;
import dev.jrdma.testing.TwoNodes;
import java.io.DataInputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;

import org.junit.jupiter.api.Test;

/**
 * Retry exhaustion across the wire, at the API: a SEND that no ACK answers completes with
 * RETRY_EXC_ERR, surfaced as a {@link WorkCompletionException} naming the queue pair, within the
 * retry budget ((retry count + 1) x 4.096 us x 2^timeout: 1.9 s with timeout 16 and 6 retries); and the
 * queue pair can then be reset, connected again and move data. The peer is {@link RetryPeer} on
 * node 2, run by the testbed's program agent there ({@link PeerOnNode2}); the ACKs are withheld
 * by netem loss 100 % on node 1's wire (this node's egress).
 * Six retries, not the defaults' seven: Soft-RoCE retries forever with seven (see
 * {@link ConnectionOptions#withTimeout}), which is why a new user's QP towards a peer that never
 * reached RTR saw no RETRY_EXC_ERR in 100 s.
 */
@TwoNodeTest
class TwoNodeRetryDeviceTest {
    /**
     * Timeout 16 (268 ms), not the defaults' 14 (67 ms): with a budget of 0.47 s the first SEND of
     * a healthy connection failed once on a host with load average 11, where a 1-vCPU node's
     * ACKs can wait that long for their vCPU.
     */
    private static final ConnectionOptions RETRY_6 = ConnectionOptions.DEFAULTS.withTimeout(16, 6);
    /** The budget is 7 x 268 ms = 1.9 s; timers and TCG emulation on a loaded host add to it. */
    private static final double BOUND_S = 20;
    /**
     * How long the agent runs a peer before it reports it as hung. No request can be cancelled:
     * the peer ends by itself once this test has gone, as each of RetryPeer's waits for the test
     * (accept, endpoint exchange, the idle peer's hold) ends after RetryPeer.STEP (120 s) and a
     * sink session ends with the test's socket; at most four such waits in a row (the sink's two
     * sessions) fit in this limit, so a peer never outlives it holding its queue pairs and port.
     */
    private static final Duration PEER_LIMIT = Duration.ofSeconds(600);
    /** How long the peer may take to start listening (the agent on node 2 is warm by then). */
    private static final Duration LISTEN_BOUND = Duration.ofSeconds(180);
    /** How long the peer may take to end once this test closed its sockets. */
    private static final Duration PEER_END = Duration.ofSeconds(30);

    @Test
    void peerThatNeverReachesRtrFailsTheSendWithinTheRetryBudget() throws Exception {
        int port = 7710;
        PeerOnNode2 peer = PeerOnNode2.start(PEER_LIMIT, RetryPeer.class, "idle", Integer.toString(port));
        peer.alongside(PEER_END, () -> {
            // Closing the socket ends the idle peer, which then releases its queue pair.
            try (Context context = RetryPeer.open(); Socket s = peer.connect(TwoNodes.NODE2, port, LISTEN_BOUND)) {
                ProtectionDomain pd = context.allocateProtectionDomain();
                CompletionQueue cq = context.createCompletionQueue(4);
                QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq)
                        .sourceGid(1, RetryPeer.gidIndex(context)).build();
                MemoryRegion mr = pd.allocate(RetryPeer.SIZE, EnumSet.of(Access.LOCAL_WRITE));
                Endpoint remote = EndpointExchange.exchange(s, qp.localEndpoint(),
                        RetryPeer.STEP);
                qp.connect(remote, RETRY_6);
                WorkCompletionException e = sendUntilFailure(qp, cq, mr, 1);
                assertEquals(WorkCompletionStatus.RETRY_EXC_ERR, e.status(), e.getMessage());
            }
            return null;
        });
        System.out.println("peer on node 2:\n" + peer.await(PEER_END).all());
    }

    @Test
    void queuePairResetAfterRetryExhaustionConnectsAgainAndMovesData() throws Exception {
        int port = 7711;
        PeerOnNode2 peer = PeerOnNode2.start(PEER_LIMIT, RetryPeer.class, "sink", Integer.toString(port), "2");
        peer.alongside(PEER_END, () -> {
            try (Context context = RetryPeer.open()) {
                ProtectionDomain pd = context.allocateProtectionDomain();
                CompletionQueue cq = context.createCompletionQueue(8);
                QueuePair qp = pd.queuePair(QueuePairType.RC).completionQueue(cq)
                        .sourceGid(1, RetryPeer.gidIndex(context)).build();
                MemoryRegion mr = pd.allocate(RetryPeer.SIZE, EnumSet.of(Access.LOCAL_WRITE));
                try (Socket s = session(qp, context, peer, port)) {
                    sendVerified(qp, cq, mr, s, 0);
                    WireFault.lossOnThisNode(100);
                    try {
                        WorkCompletionException e = sendUntilFailure(qp, cq, mr, 1);
                        assertEquals(WorkCompletionStatus.RETRY_EXC_ERR, e.status(), e.getMessage());
                        assertEquals(QueuePairState.ERR, qp.state());
                    } finally {
                        WireFault.clearThisNode();
                    }
                }
                qp.reset();
                try (Socket s = session(qp, context, peer, port)) {
                    for (int seq = 2; seq < 5; seq++) {
                        sendVerified(qp, cq, mr, s, seq);
                    }
                }
            }
            return null;
        });
        AgentClient.Result r = peer.await(Duration.ofSeconds(60));
        System.out.println("peer on node 2:\n" + r.all());
        assertEquals(0, r.code(), r.all());
    }

    /**
     * A TCP session to the sink and {@code qp} (RESET) connected to the session's queue pair; the
     * socket is closed if that fails, since only its closing ends the sink's session.
     */
    private static Socket session(QueuePair qp, Context context, PeerOnNode2 sink, int port) throws Exception {
        Socket s = sink.connect(TwoNodes.NODE2, port, LISTEN_BOUND);
        try {
            EndpointExchange.connect(s, qp, RETRY_6, RetryPeer.STEP);
            return s;
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
    }

    /** Sends message {@code seq} and waits for the sink's word that it arrived intact. */
    private static void sendVerified(QueuePair qp, CompletionQueue cq, MemoryRegion mr, Socket s, int seq)
            throws Exception {
        RetryPeer.fill(mr.segment(), seq);
        qp.post(new SendRequest().wrId(seq).sge(mr, 0, RetryPeer.SIZE));
        cq.take(new WorkCompletion(), RetryPeer.STEP).checkSuccess();
        s.setSoTimeout((int) RetryPeer.STEP.toMillis());
        assertEquals(seq, new DataInputStream(s.getInputStream()).readInt(), "the sink verified another message");
    }

    /** Posts one SEND that must fail; returns its exception after checking it came within the bound. */
    private static WorkCompletionException sendUntilFailure(QueuePair qp, CompletionQueue cq, MemoryRegion mr,
                                                            int seq) {
        RetryPeer.fill(mr.segment(), seq);
        long start = System.nanoTime();
        qp.post(new SendRequest().wrId(seq).sge(mr, 0, RetryPeer.SIZE));
        WorkCompletion wc = new WorkCompletion();
        WorkCompletionException e = assertThrows(WorkCompletionException.class,
                () -> cq.take(wc, Duration.ofSeconds(120)).checkSuccess());
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("retry: %s after %.2f s%n", e.getMessage(), seconds);
        assertEquals(qp.qpNumber(), e.queuePairNumber());
        assertTrue(e.getMessage().contains("queue pair 0x" + Integer.toHexString(qp.qpNumber())), e.getMessage());
        assertTrue(seconds < BOUND_S, "RETRY_EXC_ERR after " + seconds + " s, bound " + BOUND_S + " s");
        return e;
    }
}
