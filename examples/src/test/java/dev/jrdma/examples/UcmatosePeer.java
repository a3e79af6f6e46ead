// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;

/**
 * An rdma_cm peer that speaks the protocol of rdma-core's {@code ucmatose} (rdmacm-utils,
 * librdmacm/examples/cmatose.c), so either side can be the C tool. With ucmatose's defaults (one
 * connection, {@code -C} 10 messages of {@code -S} 100 bytes): the client posts its receives
 * before connecting; once the RC connection is established the server sends its messages, the
 * client receives them all and sends as many back, the server receives those and disconnects.
 * cmatose fills no message content, so what is checked is the protocol: every completion
 * successful, every message of the size, the counts, and the disconnect.
 */
final class UcmatosePeer {
    /** cmatose.c's defaults of message_count and message_size. */
    static final int MESSAGES = 10;
    static final int SIZE = 100;

    private UcmatosePeer() {}

    /**
     * The server, like {@code ucmatose -b ADDRESS -p PORT}: serves one connection, then disconnects.
     *
     * @param listening told once the rdma_cm id listens
     * @return what it did, for the test's report
     */
    static String server(InetSocketAddress at, Duration timeout, Runnable listening) {
        return CmPeers.serve(CmEventChannel::createId, at, timeout, listening, id -> {
            Messages m = new Messages(id);
            m.postReceives();   // the replies may come as soon as the client has our messages
            id.accept(new byte[0], timeout);
            m.send(timeout);
            m.receive(timeout);
            id.disconnect(timeout);
            return "server: sent " + MESSAGES + " messages of " + SIZE + " bytes, received " + MESSAGES
                    + " replies, disconnected";
        });
    }

    /** The client, like {@code ucmatose -s ADDRESS -p PORT}; returns what it did. */
    static String client(InetSocketAddress server, Duration timeout) {
        return CmPeers.resolve(CmEventChannel::createId, server, timeout, id -> {
            Messages m = new Messages(id);
            m.postReceives();   // cmatose's server sends at once when the connection is established
            id.connect(new byte[0], timeout);
            m.receive(timeout);
            m.send(timeout);
            id.awaitDisconnect(timeout);   // cmatose's server hangs up once it has the replies
            return "client: received " + MESSAGES + " messages of " + SIZE + " bytes, sent " + MESSAGES
                    + " replies, the server disconnected";
        });
    }

    /** One connection's queue pair, completion queues and message slots, as cmatose sizes them. */
    private static final class Messages {
        private final QueuePair qp;
        private final CompletionQueue sendCq;
        private final CompletionQueue receiveCq;
        private final MemoryRegion slots;

        Messages(CmId id) {
            Context context = id.context();
            ProtectionDomain pd = context.allocateProtectionDomain();
            // One queue each, as cmatose has: its replies may complete before our sends' acks are in.
            sendCq = context.createCompletionQueue(MESSAGES);
            receiveCq = context.createCompletionQueue(MESSAGES);
            qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).sendCompletionQueue(sendCq)
                    .receiveCompletionQueue(receiveCq).maxWorkRequests(MESSAGES, MESSAGES));
            slots = pd.allocate(2L * MESSAGES * SIZE, EnumSet.of(Access.LOCAL_WRITE));
        }

        void postReceives() {
            for (int i = 0; i < MESSAGES; i++) {
                qp.post(new ReceiveRequest().wrId(i).sge(slots, (long) i * SIZE, SIZE));
            }
        }

        void send(Duration timeout) {
            for (int i = 0; i < MESSAGES; i++) {
                long at = (long) (MESSAGES + i) * SIZE;
                for (int b = 0; b < SIZE; b++) {
                    slots.segment().set(ValueLayout.JAVA_BYTE, at + b, (byte) (i + b));
                }
                qp.post(new SendRequest().wrId(MESSAGES + i).sge(slots, at, SIZE));
            }
            take(timeout, true);
        }

        void receive(Duration timeout) {
            take(timeout, false);
        }

        /** Takes the completions of the sends ({@code sends}) or of the receives, each checked. */
        private void take(Duration timeout, boolean sends) {
            WorkCompletion wc = new WorkCompletion();
            for (int i = 0; i < MESSAGES; i++) {
                (sends ? sendCq : receiveCq).take(wc, timeout).checkSuccess();
                if (!sends && wc.byteLength() != SIZE) {
                    throw new IllegalStateException("message " + i + " has " + wc.byteLength() + " bytes, not " + SIZE);
                }
            }
        }
    }
}
