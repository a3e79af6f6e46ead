// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairAttributes;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import dev.jrdma.cm.DatagramPeer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;

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
    /** udaddy.c's defaults of message_count and message_size. */
    static final int MESSAGES = 10;
    static final int SIZE = 100;
    /** {@code struct ibv_grh}, in front of every UD receive. */
    private static final int GRH = 40;
    private static final int SLOT = GRH + SIZE;
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
            Datagrams d = new Datagrams(id);
            d.postReceives();   // the client sends as soon as it has our QPN
            id.accept(new byte[0], timeout);
            WorkCompletion first = d.receive(timeout);
            // udaddy's client resolved us; we learn it from the first datagram, as udaddy's server does.
            QueuePairAttributes attributes = d.qp.query();
            AddressHandle back = d.pd.createAddressHandle(attributes.port(), first,
                    d.slots.segment().asSlice(first.wrId() * SLOT, GRH));
            d.send(back, first.immediateData(), attributes.qkey(), timeout);
            return "server: received " + MESSAGES + " datagrams of " + SIZE + " bytes, each with its sender's QPN"
                    + " as immediate data, sent " + MESSAGES + " back";
        });
    }

    /** The client, like {@code udaddy -s ADDRESS}; returns what it did. */
    static String client(InetSocketAddress server, Duration timeout) {
        return CmPeers.resolve(CmEventChannel::createDatagramId, server, timeout, id -> {
            Datagrams d = new Datagrams(id);
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

    /** One UD queue pair, its completion queues and a slot (GRH and message) per receive, as udaddy sizes them. */
    private static final class Datagrams {
        final ProtectionDomain pd;
        final QueuePair qp;
        final MemoryRegion slots;
        private final CompletionQueue sendCq;
        private final CompletionQueue receiveCq;

        Datagrams(CmId id) {
            Context context = id.context();
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(MESSAGES);
            receiveCq = context.createCompletionQueue(MESSAGES);
            qp = id.createQueuePair(pd.queuePair(QueuePairType.UD).sendCompletionQueue(sendCq)
                    .receiveCompletionQueue(receiveCq).maxWorkRequests(MESSAGES, MESSAGES));
            slots = pd.allocate((long) (MESSAGES + 1) * SLOT, EnumSet.of(Access.LOCAL_WRITE));
        }

        void postReceives() {
            for (int i = 0; i < MESSAGES; i++) {
                qp.post(new ReceiveRequest().wrId(i).sge(slots, (long) i * SLOT, SLOT));
            }
        }

        /** Sends the datagrams, udaddy's way (SEND_WITH_IMM, our QPN as immediate data), each completion checked. */
        void send(AddressHandle to, int qpn, int qkey, Duration timeout) {
            SendRequest request = new SendRequest().opcode(SendOpcode.SEND_WITH_IMM).immediateData(qp.qpNumber())
                    .datagram(to, qpn, qkey).sge(slots, (long) MESSAGES * SLOT, SIZE);
            for (int i = 0; i < MESSAGES; i++) {
                qp.post(request.wrId(i));
            }
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < MESSAGES; i++) {
                sendCq.take(wc, timeout).checkSuccess();
            }
        }

        /**
         * Takes every receive, each checked (size, immediate data, the same sender), and
         * returns the first's completion.
         */
        WorkCompletion receive(Duration timeout) {
            WorkCompletion first = new WorkCompletion();
            WorkCompletion wc = first;
            for (int i = 0; i < MESSAGES; i++) {
                receiveCq.take(wc, timeout).checkSuccess();
                if (wc.byteLength() != SLOT) {
                    throw new IllegalStateException("datagram " + i + " has " + wc.byteLength() + " bytes with the GRH,"
                            + " not " + SLOT);
                }
                if (!wc.hasImmediate() || wc.immediateData() != wc.sourceQpNumber()
                        || wc.sourceQpNumber() != first.sourceQpNumber()) {
                    throw new IllegalStateException("datagram " + i + " is not udaddy's (its sender's QPN "
                            + first.sourceQpNumber() + " as immediate data): " + wc);
                }
                wc = i == 0 ? new WorkCompletion() : wc;
            }
            return first;
        }
    }
}
