// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.time.Duration;

/**
 * One rdma_cm control QP as a message link: a write is one SEND, a read one received message.
 * Implementations bound every wait by {@link #timeout()} and throw
 * {@link dev.jrdma.RdmaTimeoutException} naming the step when it passes, and
 * {@link PerftestProtocolException} for a message of the wrong size.
 */
public interface RdmaCmLink extends AutoCloseable {
    /** The side that called rdma_connect (the one with a host argument). */
    boolean isClient();

    /** The limit for each send completion and each receive. */
    Duration timeout();

    /** Sends one message. */
    void send(String step, byte[] message) throws IOException;

    /** Receives one message, which must be exactly {@code length} bytes. */
    byte[] receive(String step, int length) throws IOException;

    /**
     * Receives the message the peer sends after its measurement run (see
     * {@link PerftestChannel#expectPeerRun}): bounded by {@code limit} instead of
     * {@link #timeout()}, or, when {@code limit} is null (an iteration run of unknown
     * length), by the control connection itself. By default the plain {@link #receive}.
     */
    default byte[] receiveAfterPeerRun(String step, int length, Duration limit) throws IOException {
        return receive(step, length);
    }

    @Override
    void close() throws IOException;
}
