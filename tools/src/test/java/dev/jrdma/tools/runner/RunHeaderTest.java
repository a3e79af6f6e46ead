// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.jrdma.Access;
import dev.jrdma.TransportType;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The header lines jrdma computes from what the run does (the device runs: JrdmaRunDeviceTest). */
class RunHeaderTest {
    @Test
    void relaxOrderFollowsTheBuffersAccessRights() {
        assertFalse(Side.BUFFER_ACCESS.contains(Access.RELAXED_ORDERING), "jrdma never asks for relaxed ordering");
        assertEquals("OFF", RunHeader.relaxOrder(Side.BUFFER_ACCESS));
        EnumSet<Access> relaxed = EnumSet.copyOf(Side.BUFFER_ACCESS);
        relaxed.add(Access.RELAXED_ORDERING);
        assertEquals("ON", RunHeader.relaxOrder(relaxed));
    }

    @Test
    void transportIsIwOnlyForIwarp() {
        assertEquals("IW", RunHeader.transport(TransportType.IWARP));
        assertEquals("IB", RunHeader.transport(TransportType.IB));
    }

    @Test
    void theWarmUpNoticeSaysWhatRunsAndHowToSkipIt() {
        assertEquals("warm-up: warming up on a loopback QP pair of rxe0 until the JIT has compiled the test (at most"
                + " 25 s; --warm-up 0 skips this)", WarmUp.notice("rxe0", 20_000_000_000L));
    }
}
