// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import dev.jrdma.Access;
import dev.jrdma.AddressHandle;
import dev.jrdma.CompletionQueue;
import dev.jrdma.Context;
import dev.jrdma.MemoryRegion;
import dev.jrdma.ProtectionDomain;
import dev.jrdma.QueuePair;
import dev.jrdma.QueuePairType;
import dev.jrdma.ReceiveRequest;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.cm.CmId;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;

/**
 * The UD side of the peers of rdma-core's datagram tools, {@link UdaddyPeer} and
 * {@link MckeyPeer}: udaddy.c and mckey.c send alike, {@code -C} 10 datagrams of {@code -S}
 * 100 bytes, SEND_WITH_IMM with the sender's QPN as immediate data, and fill no content. One
 * UD queue pair on an rdma_cm id, its completion queues, and a slot (GRH and message) per
 * receive, as the tools size them.
 */
final class ToolDatagrams {
    /** udaddy.c's and mckey.c's defaults of message_count and message_size. */
    static final int MESSAGES = 10;
    static final int SIZE = 100;
    /** {@code struct ibv_grh}, in front of every UD receive. */
    static final int GRH = 40;
    private static final int SLOT = GRH + SIZE;

    final ProtectionDomain pd;
    final QueuePair qp;
    private final MemoryRegion slots;
    private final CompletionQueue sendCq;
    private final CompletionQueue receiveCq;

    ToolDatagrams(CmId id) {
        Context context = id.context();
        pd = context.allocateProtectionDomain();
        sendCq = context.createCompletionQueue(MESSAGES);
        receiveCq = context.createCompletionQueue(MESSAGES);
        qp = id.createQueuePair(pd.queuePair(QueuePairType.UD).sendCompletionQueue(sendCq)
                .receiveCompletionQueue(receiveCq).maxWorkRequests(MESSAGES, MESSAGES));
        slots = pd.allocate((long) (MESSAGES + 1) * SLOT, EnumSet.of(Access.LOCAL_WRITE));
    }

    /** Posts a receive per datagram, work request id {@code i} into slot {@code i}. */
    void postReceives() {
        for (int i = 0; i < MESSAGES; i++) {
            qp.post(new ReceiveRequest().wrId(i).sge(slots, (long) i * SLOT, SLOT));
        }
    }

    /** {@return the GRH that receive {@code wrId} took, once it completed} */
    MemorySegment grh(long wrId) {
        return slots.segment().asSlice(wrId * SLOT, GRH);
    }

    /** Sends the datagrams, the tools' way (SEND_WITH_IMM, our QPN as immediate data), each completion checked. */
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
                throw new IllegalStateException("datagram " + i + " is not the tool's (its sender's QPN "
                        + first.sourceQpNumber() + " as immediate data): " + wc);
            }
            wc = i == 0 ? new WorkCompletion() : wc;
        }
        return first;
    }
}
