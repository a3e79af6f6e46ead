// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** For device tests that each start from a new {@link Loopback} (two connected RC queue pairs), closed after each test. */
abstract class LoopbackFixture {
    Loopback lo;

    @BeforeEach
    void open() {
        lo = new Loopback();
    }

    @AfterEach
    void close() {
        lo.close();
    }
}
