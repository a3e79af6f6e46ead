// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.AddressHandle;
import dev.jrdma.QueuePairAttributes;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.DatagramPeer;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * An rdma_cm peer that speaks the protocol of rdma-core's {@code udaddy} (rdmacm-utils,
 * librdmacm/examples/udaddy.c), so either side can be the C tool. Over rdma_cm's UDP port space
 * (UD queue pairs, SIDR): the client resolves the server's QPN, Q_Key and address vector (the
 * ESTABLISHED event's UD parameters) and SENDs {@code -C} 10 datagrams of {@code -S} 100 bytes
 * with its own QPN as immediate data; the server, its receives posted before it accepted,
 * takes them all, builds the route back from the first one's completion and GRH, and SENDs as
 * many back to that QPN with its own as immediate data. udaddy fills no content, so what is
 * checked is the protocol: every completion successful, every datagram of the size (plus the
 * 40-byte GRH a UD receive starts with), its immediate data the sender's QPN, the counts.
 */
final class UdaddyPeer {
    private static final int MESSAGES = ToolDatagrams.MESSAGES;
    private static final int SIZE = ToolDatagrams.SIZE;
    /** udaddy.c's port, in rdma_cm's UDP port space; it has no option for another. */
    static final int PORT = 7174;

    private UdaddyPeer() {}

    /**
     * The server, like {@code udaddy -b ADDRESS} (udaddy's port is always {@link #PORT}; its
     * {@code -p} picks the port space): serves one client.
     *
     * @param listening told once the rdma_cm id listens
     * @return what it did, for the test's report
     */
    static String server(InetSocketAddress at, Duration timeout, Runnable listening) {
        return CmPeers.serve(CmEventChannel::createDatagramId, at, timeout, listening, id -> {
            ToolDatagrams d = new ToolDatagrams(id);
            d.postReceives();   // the client sends as soon as it has our QPN
            id.accept(new byte[0], timeout);
            WorkCompletion first = d.receive(timeout);
            // udaddy's client resolved us; we learn it from the first datagram, as udaddy's server does.
            QueuePairAttributes attributes = d.qp.query();
            AddressHandle back = d.pd.createAddressHandle(attributes.port(), first, d.grh(first.wrId()));
            d.send(back, first.immediateData(), attributes.qkey(), timeout);
            return "server: received " + MESSAGES + " datagrams of " + SIZE + " bytes, each with its sender's QPN"
                    + " as immediate data, sent " + MESSAGES + " back";
        });
    }

    /** The client, like {@code udaddy -s ADDRESS}; returns what it did. */
    static String client(InetSocketAddress server, Duration timeout) {
        return CmPeers.resolve(CmEventChannel::createDatagramId, server, timeout, id -> {
            ToolDatagrams d = new ToolDatagrams(id);
            d.postReceives();   // udaddy's server replies as soon as it has all of ours
            DatagramPeer peer = id.connectDatagram(new byte[0], timeout);
            AddressHandle to = peer.createAddressHandle(d.pd);
            d.send(to, peer.qpNumber(), peer.qkey(), timeout);
            WorkCompletion first = d.receive(timeout);
            if (first.sourceQpNumber() != peer.qpNumber()) {
                throw new IllegalStateException("the replies come from QPN " + first.sourceQpNumber()
                        + ", rdma_cm resolved " + peer);
            }
            return "client: sent " + MESSAGES + " datagrams of " + SIZE + " bytes, received " + MESSAGES
                    + " back from the QPN rdma_cm resolved";
        });
    }
}
