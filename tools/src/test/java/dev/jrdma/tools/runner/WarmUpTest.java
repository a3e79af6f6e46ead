// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WarmUpTest {
    @Test
    void warmUpWaitsForAnIdleJitAsHotSpotReportsIt() {
        assertTrue(WarmUp.jitIdle("Current compiles: \n\nC2 compile queue:\nEmpty\n\n"));
        assertTrue(WarmUp.jitIdle("Current compiles: \n\nC1 compile queue:\nEmpty\n\nC2 compile queue:\nEmpty\n"));
        assertFalse(WarmUp.jitIdle("Current compiles: \nC2 CompilerThread0  1727       4       "
                + "java.lang.String::substring (10 bytes)\n\nC2 compile queue:\nEmpty\n"));
        assertFalse(WarmUp.jitIdle("Current compiles: \n\nC2 compile queue:\n1795       4       "
                + "java.util.ArrayList::get (15 bytes)\n"));
        assertFalse(WarmUp.jitIdle("Unknown diagnostic command"), "not a queue report");
    }
}
