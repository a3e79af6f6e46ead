// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

/**
 * State and properties of a port ({@code struct ibv_port_attr}); from {@link Context#queryPort(int)}.
 *
 * @param port           the port number (from 1)
 * @param state          logical port state
 * @param maxMtu         largest MTU the port supports
 * @param activeMtu      MTU in use (RoCE derives it from the netdev MTU)
 * @param lid            base LID (0 on RoCE, which has no LIDs)
 * @param smLid          LID of the subnet manager
 * @param gidTableLength entries in the GID table
 * @param linkLayer      InfiniBand or Ethernet
 * @param activeSpeed    {@code active_speed} code (1 SDR, 2 DDR, 4 QDR, 8 FDR10, 16 FDR, 32 EDR, 64 HDR, 128 NDR)
 * @param activeWidth    {@code active_width} code (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x)
 * @param maxMessageSize largest message, bytes
 * @param physicalState  {@code phys_state} code (5 = LinkUp)
 */
public record PortAttributes(int port, PortState state, Mtu maxMtu, Mtu activeMtu, int lid, int smLid,
                             int gidTableLength, LinkLayer linkLayer, int activeSpeed, int activeWidth,
                             long maxMessageSize, int physicalState) {
    /** {@return the lanes of the active width (1, 2, 4, 8 or 12), 0 for an unknown code} */
    public int lanes() {
        return switch (activeWidth) {
            case 1 -> 1;
            case 2 -> 4;
            case 4 -> 8;
            case 8 -> 12;
            case 16 -> 2;
            default -> 0;
        };
    }

    /** {@return the signalling rate of one lane in Gb/s for the active speed code, 0 for an unknown code} */
    public double laneGbps() {
        return switch (activeSpeed) {
            case 1 -> 2.5;
            case 2 -> 5.0;
            case 4, 8 -> 10.0;
            case 16 -> 14.0;
            case 32 -> 25.0;
            case 64 -> 50.0;
            case 128 -> 100.0;
            default -> 0;
        };
    }

    /** {@return whether the port routes by GID only (RoCE): connections then need a GID, not a LID} */
    public boolean isEthernet() {
        return linkLayer == LinkLayer.ETHERNET;
    }
}
