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
import dev.jrdma.RemoteMemory;
import dev.jrdma.SendOpcode;
import dev.jrdma.SendRequest;
import dev.jrdma.WorkCompletion;
import dev.jrdma.WorkCompletionOpcode;
import dev.jrdma.cm.CmEventChannel;
import dev.jrdma.cm.CmId;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;

/**
 * An rdma_cm peer that speaks the protocol of rdma-core's {@code rping} (rdmacm-utils,
 * librdmacm/examples/rping.c), so either side can be the C tool. Per ping, over one RC
 * connection: the client SENDs its start buffer as a {@code struct rping_rdma_info} (address,
 * rkey, size, big-endian), the server RDMA READs it and SENDs a go-ahead, the client SENDs its
 * sink buffer's info, the server RDMA WRITEs the bytes it read there and SENDs another go-ahead;
 * the client compares sink and start. After {@code -C} pings the client disconnects. rping's
 * ping data is a C string ({@link #pingData}), which its server prints with {@code -v} and
 * echoes by its {@code strlen}, so jrdma's client fills its start buffer the same way and
 * jrdma's server checks every byte it reads against it.
 */
final class RpingPeer {
    /** rping.c's default {@code -S}: the bytes of a ping. */
    static final int SIZE = 64;
    /** {@code struct rping_rdma_info}: __be64 buf, __be32 rkey, __be32 size. */
    private static final int INFO = 16;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private RpingPeer() {}

    /**
     * The bytes rping's client puts in its start buffer for ping {@code ping}: the text
     * {@code "rdma-ping-N: "}, then letters 'A'..'z' round and round from a first letter that
     * moves on by one per ping, then a NUL as the last byte.
     */
    static byte[] pingData(int ping, int size) {
        byte[] data = new byte[size];
        byte[] text = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, data, 0, Math.min(text.length, size - 1));
        int c = 'A' + ping % ('z' - 'A' + 1);
        for (int i = text.length; i < size - 1; i++) {
            data[i] = (byte) c;
            c = c == 'z' ? 'A' : c + 1;
        }
        return data;
    }

    /**
     * The server, like {@code rping -s -a ADDRESS -p PORT}: serves one connection of
     * {@code pings} pings of {@link #SIZE} bytes, each read checked, then waits for the client's
     * disconnect.
     *
     * @param listening told once the rdma_cm id listens
     * @return what it did, for the test's report
     */
    static String server(InetSocketAddress at, int pings, Duration timeout, Runnable listening) {
        return CmPeers.serve(CmEventChannel::createId, at, timeout, listening, id -> {
            Connection c = new Connection(id, timeout);
            // Where the client's ping lands (READ) and is written back from: local access only.
            MemoryRegion buffer = c.pd.allocate(SIZE, EnumSet.of(Access.LOCAL_WRITE));
            c.postReceive();   // rping's client SENDs its first info as soon as it is connected
            id.accept(new byte[0], timeout);
            for (int ping = 0; ping < pings; ping++) {
                RemoteMemory source = c.receiveInfo();
                int length = Math.toIntExact(source.length());
                if (length > SIZE) {
                    throw new IllegalStateException("ping " + ping + ": the client offers " + length
                            + " bytes, more than the " + SIZE + " this server reads");
                }
                c.post(new SendRequest().wrId(ping).opcode(SendOpcode.RDMA_READ).sge(buffer, 0, length).remote(source),
                        WorkCompletionOpcode.RDMA_READ);
                byte[] read = buffer.segment().asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
                byte[] expected = pingData(ping, length);
                if (!Arrays.equals(read, expected)) {
                    throw new IllegalStateException("ping " + ping + ": read " + HexFormat.of().formatHex(read)
                            + ", rping sends " + HexFormat.of().formatHex(expected));
                }
                c.goAhead();
                RemoteMemory sink = c.receiveInfo();
                if (sink.length() < length) {
                    throw new IllegalStateException("ping " + ping + ": the client's sink has " + sink.length()
                            + " bytes, the ping " + length);
                }
                c.post(new SendRequest().wrId(ping).opcode(SendOpcode.RDMA_WRITE).sge(buffer, 0, length).remote(sink),
                        WorkCompletionOpcode.RDMA_WRITE);
                c.goAhead();
            }
            id.awaitDisconnect(timeout);   // rping's client hangs up after its -C pings
            return "server: read " + pings + " pings of " + SIZE + " bytes, each as rping sends it, wrote each back,"
                    + " the client disconnected";
        });
    }

    /**
     * The client, like {@code rping -c -V -C PINGS -a ADDRESS -p PORT}: {@code pings} pings of
     * {@link #SIZE} bytes, each written back checked, then disconnects.
     *
     * @return what it did, for the test's report
     */
    static String client(InetSocketAddress server, int pings, Duration timeout) {
        return CmPeers.resolve(CmEventChannel::createId, server, timeout, id -> {
            Connection c = new Connection(id, timeout);
            MemoryRegion start = c.pd.allocate(SIZE, EnumSet.of(Access.REMOTE_READ));
            MemoryRegion sink = c.pd.allocate(SIZE, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            c.postReceive();
            id.connect(new byte[0], timeout);
            for (int ping = 0; ping < pings; ping++) {
                byte[] data = pingData(ping, SIZE);
                MemorySegment.copy(data, 0, start.segment(), ValueLayout.JAVA_BYTE, 0, SIZE);
                sink.segment().fill((byte) 0);   // so a WRITE that never landed cannot pass for the last one
                c.sendInfo(start.remote());
                c.receiveGoAhead();
                c.sendInfo(sink.remote());
                c.receiveGoAhead();
                byte[] echoed = sink.segment().toArray(ValueLayout.JAVA_BYTE);
                if (!Arrays.equals(echoed, data)) {
                    throw new IllegalStateException("ping " + ping + ": the server wrote "
                            + HexFormat.of().formatHex(echoed) + ", not " + HexFormat.of().formatHex(data));
                }
            }
            id.disconnect(timeout);
            return "client: " + pings + " pings of " + SIZE + " bytes read by the server and written back intact";
        });
    }

    /**
     * One connection's queue pair, completion queues and the two 16-byte message slots (a
     * receive, a send), as rping has them: one receive posted at a time and posted again as soon
     * as its message is read, since the peer sends the next only after an answer.
     */
    private static final class Connection {
        private static final long RECEIVE_SLOT = 0;
        private static final long SEND_SLOT = INFO;

        final ProtectionDomain pd;
        private final QueuePair qp;
        private final CompletionQueue sendCq;
        private final CompletionQueue receiveCq;
        private final MemoryRegion slots;
        private final Duration timeout;
        private final WorkCompletion wc = new WorkCompletion();

        Connection(CmId id, Duration timeout) {
            this.timeout = timeout;
            Context context = id.context();
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(16);
            receiveCq = context.createCompletionQueue(2);
            qp = id.createQueuePair(pd.queuePair(QueuePairType.RC).sendCompletionQueue(sendCq)
                    .receiveCompletionQueue(receiveCq).maxWorkRequests(16, 2));
            slots = pd.allocate(2 * INFO, EnumSet.of(Access.LOCAL_WRITE));
        }

        void postReceive() {
            qp.post(new ReceiveRequest().wrId(0).sge(slots, RECEIVE_SLOT, INFO));
        }

        /** Takes the next message, which must be a whole rping_rdma_info, and posts the receive again. */
        private MemorySegment receive() {
            receiveCq.take(wc, timeout).checkSuccess();
            if (wc.byteLength() != INFO) {
                throw new IllegalStateException("a message of " + wc.byteLength() + " bytes, rping's are " + INFO);
            }
            return slots.segment().asSlice(RECEIVE_SLOT, INFO);
        }

        RemoteMemory receiveInfo() {
            MemorySegment info = receive();
            RemoteMemory remote = new RemoteMemory(info.get(BE64, 0), Integer.toUnsignedLong(info.get(BE32, 12)),
                    info.get(BE32, 8));
            postReceive();
            return remote;
        }

        void receiveGoAhead() {
            receive();
            postReceive();
        }

        void sendInfo(RemoteMemory memory) {
            MemorySegment info = slots.segment().asSlice(SEND_SLOT, INFO);
            info.set(BE64, 0, memory.address());
            info.set(BE32, 8, memory.rkey());
            info.set(BE32, 12, Math.toIntExact(memory.length()));
            post(new SendRequest().wrId(1).sge(slots, SEND_SLOT, INFO), WorkCompletionOpcode.SEND);
        }

        /** rping's server sends its (never filled) info buffer as the go-ahead: 16 zero bytes. */
        void goAhead() {
            slots.segment().asSlice(SEND_SLOT, INFO).fill((byte) 0);
            post(new SendRequest().wrId(1).sge(slots, SEND_SLOT, INFO), WorkCompletionOpcode.SEND);
        }

        /** Posts one signalled request and takes its completion, checked. */
        void post(SendRequest request, WorkCompletionOpcode expected) {
            qp.post(request);
            sendCq.take(wc, timeout).checkSuccess();
            if (wc.opcode() != expected) {
                throw new IllegalStateException("a " + wc.opcode() + " completion, expected " + expected);
            }
        }
    }
}
