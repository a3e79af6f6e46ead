// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import dev.jrdma.AddressHandle;
import dev.jrdma.tools.perftest.PeerInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Side}'s endpoint records: its own per-QP key records (what it announces), the peer's
 * (empty until the exchange), and with -c UD the address handles towards the peer's QPs.
 */
final class PeerRecords {
    /** Per QP this side's record, as built with its QPs (-g replaces the address with the group's). */
    final List<PeerInfo> mine = new ArrayList<>();
    /** Per QP the peer's record. */
    List<PeerInfo> remote = List.of();
    /** -c UD: per QP the address handle of the peer's QP (built in connect). */
    final List<AddressHandle> addressHandles = new ArrayList<>();
}
