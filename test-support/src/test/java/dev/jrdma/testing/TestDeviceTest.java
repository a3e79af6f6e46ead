// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TestDeviceTest {
    @Test
    void theFirstDeviceWhenNoneIsNamed() {
        assertEquals("mlx5_0", TestDevice.choose(List.of("mlx5_0", "rxe0"), null));
        assertEquals("mlx5_0", TestDevice.choose(List.of("mlx5_0", "rxe0"), " "));
    }

    @Test
    void theNamedDevice() {
        assertEquals("rxe0", TestDevice.choose(List.of("mlx5_0", "rxe0"), "rxe0"));
    }

    @Test
    void aNamedDeviceThatIsNotHereFailsNamingTheDevices() {
        AssertionError e = assertThrows(AssertionError.class, () -> TestDevice.choose(List.of("rxe0"), "rxe7"));
        assertTrue(e.getMessage().contains("JRDMA_TEST_DEVICE=rxe7") && e.getMessage().contains("[rxe0]"),
                e.getMessage());
    }

    @Test
    void noDeviceFails() {
        AssertionError e = assertThrows(AssertionError.class, () -> TestDevice.choose(List.of(), "rxe0"));
        assertTrue(e.getMessage().startsWith("no RDMA device found"), e.getMessage());
    }
}
