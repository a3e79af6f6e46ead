// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ConnectionOptionsTest {
    @Test
    void serviceLevelAndTrafficClassDefaultToZeroAndAreRangeChecked() {
        assertEquals(0, ConnectionOptions.DEFAULTS.serviceLevel());
        assertEquals(0, ConnectionOptions.DEFAULTS.trafficClass());
        ConnectionOptions o = ConnectionOptions.DEFAULTS.withServiceLevel(15).withTrafficClass(255).withRnrRetry(3);
        assertEquals(15, o.serviceLevel());
        assertEquals(255, o.trafficClass());
        assertEquals(3, o.rnrRetry());
        assertEquals("serviceLevel must be within 0..15, not 16", assertThrows(IllegalArgumentException.class,
                () -> ConnectionOptions.DEFAULTS.withServiceLevel(16)).getMessage());
        assertEquals("trafficClass must be within 0..255, not -1", assertThrows(IllegalArgumentException.class,
                () -> ConnectionOptions.DEFAULTS.withTrafficClass(-1)).getMessage());
    }
}
