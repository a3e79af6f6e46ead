// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * For device tests that each start from a new context of the test device with a protection
 * domain on it; the context is closed after each test (a test may close it first: closing
 * twice is harmless).
 */
abstract class DeviceFixture {
    Context context;
    ProtectionDomain pd;

    @BeforeEach
    void open() {
        context = TestDevices.device().open();
        pd = context.allocateProtectionDomain();
    }

    @AfterEach
    void close() {
        context.close();
    }
}
