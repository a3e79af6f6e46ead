// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.runner;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which devices perftest (and so jrdma by default) posts to through the extended post API. */
class PostPathTest {
    @Test
    void perftestsDevicesPostThroughTheExtendedApi() {
        for (int partId : new int[] {4113, 4115, 4119, 4121, 4123, 4125, 4126, 4129, 4131, 41686, 41692, 61344,
                41506}) {
            assertTrue(PostResources.perftestPostsExtended(partId), "part id " + partId);
        }
    }

    /** Soft-RoCE reports vendor part id 0 (rxe); ConnectX-3 (mlx4) and siw are not on perftest's list either. */
    @Test
    void otherDevicesPostWithIbvPostSend() {
        for (int partId : new int[] {0, 4099, 4103, 4223, 5638, 0xffffff}) {
            assertFalse(PostResources.perftestPostsExtended(partId), "part id " + partId);
        }
    }
}
