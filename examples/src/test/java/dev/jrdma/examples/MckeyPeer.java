// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.examples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dev.jrdma.cm.DatagramPeer;
import dev.jrdma.cm.MulticastJoin;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;

/**
 * An rdma_cm peer that speaks the protocol of rdma-core's {@code mckey} (rdmacm-utils,
 * librdmacm/examples/mckey.c), so either side can be the C tool. Every member binds a UD id
 * of rdma_cm's UDP port space to its address, resolves the group's and joins it as a full
 * member ({@code rdma_join_multicast_ex}), a receiver with its receives posted before it joins;
 * the sender ({@code -s}) then SENDs {@code -C} 10 datagrams of {@code -S} 100 bytes to the
 * group: the join's address vector, QPN 0xFFFFFF and the join's Q_Key, its own QPN as
 * immediate data ({@link ToolDatagrams}). mckey's sender waits 3 s after its join (for an SM
 * to program switches), posts the sends unsignaled and leaves; its receiver counts completions
 * and checks nothing else. jrdma's receiver checks every completion, the size (plus the 40-byte
 * GRH), the immediate data (the sender's QPN), one sender, and that each datagram came
 * through the group: on RoCE v2 the GRH slot holds the IPv4 header, addressed to the group.
 */
final class MckeyPeer {
    /** The group the tests join: administratively scoped, not the other tests' groups. */
    static final String GROUP = "239.0.51.4";
    private static final int MESSAGES = ToolDatagrams.MESSAGES;
    private static final int SIZE = ToolDatagrams.SIZE;
    /** Where a RoCE v2 IPv4 datagram's GRH slot has the IPv4 header's destination (after 20 reserved bytes). */
    private static final int IPV4_DESTINATION = 20 + 16;

    private MckeyPeer() {}

    static InetAddress group() {
        try {
            return InetAddress.getByName(GROUP);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A receiver, like {@code mckey -m GROUP -b LOCAL}: joins, tells {@code joined}, takes
     * every datagram.
     *
     * @return what it did, for the test's report
     */
    static String receiver(InetAddress local, Duration timeout, Runnable joined) {
        InetAddress group = group();
        return CmPeers.resolveGroup(local, group, timeout, id -> {
            ToolDatagrams d = new ToolDatagrams(id);
            d.postReceives();   // mckey's sender sends 3 s after its own join, whatever ours does
            try (MulticastJoin join = MulticastJoin.join(id, group, MulticastJoin.JoinType.FULL_MEMBER, timeout)) {
                joined.run();
                d.receive(timeout);
            }
            for (int i = 0; i < MESSAGES; i++) {
                MemorySegment to = d.grh(i).asSlice(IPV4_DESTINATION, 4);
                if (!Arrays.equals(to.toArray(JAVA_BYTE), group.getAddress())) {
                    throw new IllegalStateException("datagram " + i + " is addressed to "
                            + Arrays.toString(to.toArray(JAVA_BYTE)) + ", not the group " + GROUP);
                }
            }
            return "receiver: joined " + GROUP + ", received " + MESSAGES + " datagrams of " + SIZE
                    + " bytes from one sender, each addressed to the group, its sender's QPN as immediate data";
        });
    }

    /** A sender, like {@code mckey -m GROUP -b LOCAL -s}; returns what it did. */
    static String sender(InetAddress local, Duration timeout) {
        InetAddress group = group();
        return CmPeers.resolveGroup(local, group, timeout, id -> {
            ToolDatagrams d = new ToolDatagrams(id);
            try (MulticastJoin join = MulticastJoin.join(id, group, MulticastJoin.JoinType.FULL_MEMBER, timeout)) {
                DatagramPeer to = join.destination();
                if (to.qpNumber() != DatagramPeer.MULTICAST_QPN) {
                    throw new IllegalStateException("the join's destination is not the multicast QPN: " + to);
                }
                d.send(to.createAddressHandle(d.pd), to.qpNumber(), to.qkey(), timeout);
            }
            return "sender: joined " + GROUP + ", sent " + MESSAGES + " datagrams of " + SIZE
                    + " bytes to QPN 0xffffff with the join's Q_Key, each completion successful";
        });
    }
}
