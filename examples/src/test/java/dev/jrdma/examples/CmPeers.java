// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Function;

/**
 * How the rdma_cm tools' peers ({@link UcmatosePeer}, {@link RpingPeer}, {@link UdaddyPeer},
 * {@link MckeyPeer}) get their id, on an event channel of their own: the server side takes the
 * first connect request, the client side resolves the server, a group member resolves the group. {@code create} picks the port space:
 * {@code CmEventChannel::createId} (TCP, RC) or {@code CmEventChannel::createDatagramId} (UDP, UD).
 */
final class CmPeers {
    private CmPeers() {}

    /**
     * Opens an event channel, listens at {@code at}, tells {@code listening}, and runs
     * {@code conversation} on the id of the first connect request (the tools serve one peer);
     * closing the channel at the end destroys the ids and what they own.
     *
     * @return what {@code conversation} returns: what the peer did, for the test's report
     */
    static String serve(Function<CmEventChannel, CmId> create, InetSocketAddress at, Duration timeout,
            Runnable listening, Function<CmId, String> conversation) {
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId listener = create.apply(channel);
            listener.bind(at);
            listener.listen(1);
            listening.run();
            return conversation.apply(listener.awaitConnectRequest(timeout).id());
        }
    }

    /**
     * Opens an event channel and runs {@code conversation} on a new id with its address and
     * route to {@code server} resolved; closing the channel at the end destroys what it made.
     *
     * @return what {@code conversation} returns: what the peer did, for the test's report
     */
    static String resolve(Function<CmEventChannel, CmId> create, InetSocketAddress server, Duration timeout,
            Function<CmId, String> conversation) {
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId id = create.apply(channel);
            id.resolveAddress(server, timeout);
            id.resolveRoute(timeout);
            return conversation.apply(id);
        }
    }

    /**
     * Opens an event channel and runs {@code conversation} on a new datagram id bound to
     * {@code local} with its address resolved to {@code group}, as mckey's {@code -b} and
     * {@code -m} do: ready to join the group; closing the channel at the end destroys what it made.
     *
     * @return what {@code conversation} returns: what the peer did, for the test's report
     */
    static String resolveGroup(InetAddress local, InetAddress group, Duration timeout,
            Function<CmId, String> conversation) {
        try (CmEventChannel channel = CmEventChannel.create()) {
            CmId id = channel.createDatagramId();
            id.bind(new InetSocketAddress(local, 0));
            id.resolveAddress(new InetSocketAddress(group, 0), timeout);
            return conversation.apply(id);
        }
    }
}
