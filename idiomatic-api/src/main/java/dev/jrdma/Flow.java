// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.ibv_flow;
import dev.jrdma.bindings.generated.ibv_flow_attr;
import dev.jrdma.bindings.generated.ibv_flow_eth_filter;
import dev.jrdma.bindings.generated.ibv_flow_spec_eth;
import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.bindings.shim.Errno;
import dev.jrdma.bindings.shim.SteeringVerbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A steering flow ({@code struct ibv_flow}): a rule that delivers the Ethernet frames it matches
 * to a queue pair (raw packet or UD on the NICs that steer). From {@link #create}; providers
 * without flow steering (rxe) refuse it with {@link OperationNotSupportedException}.
 *
 * <p>{@link #toString()}: {@code flow to <qp>}.
 */
@Reaches({"ibv_destroy_flow"})   // close() reaches them
public final class Flow extends NativeObject {
    /**
     * What to match: frames to {@code destinationMac} (all six bytes compared) of
     * {@code etherType} (0 = any), arriving on {@code port}.
     *
     * @param port           the port, counting from 1
     * @param priority       lower is matched first
     * @param destinationMac six bytes
     * @param etherType      e.g. 0x0800 for IPv4; 0 matches any
     */
    public record Rule(int port, int priority, byte[] destinationMac, int etherType) {
        /** Checks the MAC's length and keeps a copy of it. */
        public Rule {
            if (destinationMac.length != 6) {
                throw new IllegalArgumentException("a MAC address has 6 bytes, not " + destinationMac.length);
            }
            destinationMac = destinationMac.clone();
        }
    }

    private Flow(QueuePair qp, MemorySegment handle) {
        super(handle, "flow to " + qp, qp);
    }

    /**
     * Steers the frames {@code rule} matches to {@code qp}.
     *
     * @param qp   the queue pair that receives them
     * @param rule what to match
     * @return the flow, owned by the queue pair
     */
    @Reaches({"ibv_create_flow"})
    public static Flow create(QueuePair qp, Rule rule) {
        Context context = qp.protectionDomain().context();
        try (Arena arena = Arena.ofConfined(); var _ = hold(qp)) {
            long attrSize = ibv_flow_attr.layout().byteSize();
            long specSize = ibv_flow_spec_eth.layout().byteSize();
            MemorySegment attr = arena.allocate(attrSize + specSize, 8);
            ibv_flow_attr.type(attr, rdma_h.IBV_FLOW_ATTR_NORMAL());
            ibv_flow_attr.size(attr, (short) (attrSize + specSize));
            ibv_flow_attr.priority(attr, (short) rule.priority());
            ibv_flow_attr.num_of_specs(attr, (byte) 1);
            ibv_flow_attr.port(attr, (byte) rule.port());
            MemorySegment spec = attr.asSlice(attrSize, specSize);
            ibv_flow_spec_eth.type(spec, rdma_h.IBV_FLOW_SPEC_ETH());
            ibv_flow_spec_eth.size(spec, (short) specSize);
            MemorySegment val = ibv_flow_spec_eth.val(spec);
            MemorySegment mask = ibv_flow_spec_eth.mask(spec);
            MemorySegment.copy(rule.destinationMac(), 0, ibv_flow_eth_filter.dst_mac(val), ValueLayout.JAVA_BYTE, 0, 6);
            ibv_flow_eth_filter.dst_mac(mask).fill((byte) 0xff);
            if (rule.etherType() != 0) {
                ibv_flow_eth_filter.ether_type(val, Short.reverseBytes((short) rule.etherType()));   // network order
                ibv_flow_eth_filter.ether_type(mask, (short) 0xffff);
            }
            MemorySegment errno = Errno.allocate(arena);
            MemorySegment flow = SteeringVerbs.ibv_create_flow(errno, qp.handle(), attr);
            RdmaException.checkCreated(Verb.IBV_CREATE_FLOW, qp, errno, flow, context, "flow steering");
            return wrapCreated(flow, ibv_flow.layout(), h -> new Flow(qp, h), SteeringVerbs::ibv_destroy_flow);
        }
    }

    /**
     * {@return the UDP source port RoCE v2 uses for packets of {@code flowLabel}, the way
     * {@code ibv_flow_label_to_udp_sport} folds the 20-bit label into 14 bits above 0xC000} A
     * steering or ECMP rule that should match one QP's packets matches this port.
     *
     * @param flowLabel the GRH flow label (the low 20 bits count)
     */
    @Reaches({"ibv_flow_label_to_udp_sport"})
    public static int udpSourcePort(int flowLabel) {
        int low = flowLabel & 0x03FFF;
        int high = flowLabel & 0xFC000;
        return (low ^ (high >>> 14)) | 0xC000;
    }

    /** Removes the rule; reaches {@code ibv_destroy_flow}. */
    @Override
    protected void release() {
        RdmaException.check(Verb.IBV_DESTROY_FLOW, this, SteeringVerbs.ibv_destroy_flow(handle));
    }
}
