// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import dev.jrdma.tools.perftest.OperationSettings;
import picocli.CommandLine.Option;

/** --send_with_imm: the send tests, as perftest's usage() offers it. */
final class OperationOptions {
    @Option(names = "--send_with_imm",
            description = "Send with immediate data (SEND_WITH_IMM) instead of SEND; the receiver fails on a "
                    + "message without it, so give it to both sides.")
    boolean sendWithImmediate;

    /** The settings. */
    OperationSettings resolve() {
        return sendWithImmediate ? new OperationSettings(true) : OperationSettings.DEFAULT;
    }
}
