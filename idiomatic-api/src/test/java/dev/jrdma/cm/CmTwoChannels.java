// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.cm;

import dev.jrdma.TestDevices;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The set-up the rdma_cm device tests share: a server and a client event channel per test, so
 * that each side's events arrive apart, closed after it (closing a channel closes every id on
 * it, with its queue pair and context view).
 */
abstract class CmTwoChannels {
    static final Duration TIMEOUT = TestDevices.TIMEOUT;
    CmEventChannel serverChannel;
    CmEventChannel clientChannel;

    @BeforeEach
    void openChannels() {
        serverChannel = CmEventChannel.create();
        clientChannel = CmEventChannel.create();
    }

    @AfterEach
    void closeChannels() {
        clientChannel.close();
        serverChannel.close();
    }

    /** {@return {@code s} in ASCII, as the tests' messages and private data travel} */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
