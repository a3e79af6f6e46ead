// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.perftest.OperationSettings;
import picocli.CommandLine.Option;

/**
 * perftest's other verbs: --send_with_imm on the send tests, --write_with_imm
 * ({@link WriteImmediateOptions}) on the write tests, as perftest's usage() offers them.
 */
final class OperationOptions {
    @Option(names = "--send_with_imm",
            description = "Send with immediate data (SEND_WITH_IMM) instead of SEND; the receiver fails on a "
                    + "message without it, so give it to both sides.")
    boolean sendWithImmediate;

    /** --write_with_imm: the write tests. */
    static final class WriteImmediateOptions {
        @Option(names = "--write_with_imm",
                description = "RDMA write with immediate data (RDMA_WRITE_WITH_IMM) instead of RDMA write: each "
                        + "write consumes a receive at the peer, so the write-bw server runs too and prints its own "
                        + "row, and write-lat's sides wait for completions instead of polling the buffer. Give it "
                        + "to both sides.")
        boolean writeWithImmediate;
    }

    /**
     * The settings.
     *
     * @param send  the test's --send_with_imm, or null where it does not offer it
     * @param write the test's --write_with_imm, or null where it does not offer it
     */
    static OperationSettings resolve(OperationOptions send, WriteImmediateOptions write) {
        boolean s = send != null && send.sendWithImmediate;
        boolean w = write != null && write.writeWithImmediate;
        return s || w ? new OperationSettings(s, w) : OperationSettings.DEFAULT;
    }
}
